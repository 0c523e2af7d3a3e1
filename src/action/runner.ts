/**
 * The GitHub runner's contract with a JavaScript action, as its documentation
 * states it: inputs arrive as `INPUT_<NAME>` (upper-cased, hyphens kept),
 * outputs and the job summary are files named by `GITHUB_OUTPUT` and
 * `GITHUB_STEP_SUMMARY`, annotations are workflow commands on stdout.
 */
import { appendFileSync } from 'node:fs';

/** `core.getInput`'s rule: `INPUT_` + the name with spaces as `_`, upper-cased; hyphens stay. */
export const inputVar = (name: string): string => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;

/** An input's value, trimmed; an unset variable (the entry run outside a runner) is the default. */
export function input(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const v = env[inputVar(name)];
  return v === undefined ? fallback : v.trim();
}

/** A workflow command's message: `%`, CR and LF escaped, so one command stays one line. */
export const commandData = (s: string): string =>
  s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

export function annotate(kind: 'error' | 'warning', title: string, message: string): void {
  process.stdout.write(`::${kind} title=${title}::${commandData(message)}\n`);
}

/** Appends outputs in GITHUB_OUTPUT's `name=value` form (values here are one line). */
export function setOutputs(env: NodeJS.ProcessEnv, outputs: Record<string, string>): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) throw new Error('GITHUB_OUTPUT is not set');
  const lines = Object.entries(outputs).map(([k, v]) => `${k}=${v.replace(/[\r\n]+/g, ' ')}\n`);
  appendFileSync(file, lines.join(''));
}

export function appendSummary(env: NodeJS.ProcessEnv, text: string): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) throw new Error('GITHUB_STEP_SUMMARY is not set');
  appendFileSync(file, text);
}
