/**
 * Runs a `node24` JavaScript action the way the GitHub Actions runner does,
 * so a test sees what a workflow would see:
 *
 * - every input of action.yml arrives as `INPUT_<NAME>`, the name upper-cased
 *   with its hyphens kept (`INPUT_NOTES-REF`), with its default when the
 *   workflow gives none (`${{ github.token }}` is the job's token);
 * - `runs.main` is started with the runner's `node`, in GITHUB_WORKSPACE, with
 *   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP set to fresh files and
 *   folders; GITHUB_OUTPUT is read back in both of its documented forms
 *   (`name=value` and `name<<DELIMITER` … `DELIMITER`);
 * - the action's outputs are the names action.yml declares, nothing else.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string };
}

export interface ActionResult {
  /** The entry's exit code: non-zero fails the step. */
  code: number;
  stdout: string;
  stderr: string;
  /** The action's outputs (those action.yml declares). */
  outputs: Record<string, string>;
  summary: string;
  failed: boolean;
}

export interface RunActionOptions {
  /** The folder holding action.yml (a checkout of the action's repository at its ref). */
  actionDir: string;
  inputs: Record<string, string>;
  /** The job's working directory (GITHUB_WORKSPACE). */
  workspace: string;
  /** The job's environment (PATH, GITHUB_BASE_REF, GITHUB_EVENT_PATH, credentials). */
  env: NodeJS.ProcessEnv;
  /** The runner's node for `runs.using` (default: this process's). */
  node?: string;
  /** `${{ github.token }}`. */
  githubToken?: string;
}

/** `INPUT_` + the name with spaces as `_`, upper-cased; hyphens stay (the runner's rule). */
export const inputVar = (name: string): string => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;

/** Asynchronous, so a loopback server in the test's own process keeps answering while the action runs. */
export async function runAction(o: RunActionOptions): Promise<ActionResult> {
  const action = parse(readFileSync(join(o.actionDir, 'action.yml'), 'utf8')) as ActionYml;
  if (action.runs.using !== 'node24') throw new Error(`runs.using is ${action.runs.using}, not node24`);
  for (const k of Object.keys(o.inputs))
    if (!(k in action.inputs)) throw new Error(`action.yml has no input "${k}"`);
  const temp = mkdtempSync(join(tmpdir(), 'revloop-runner-'));
  const runnerTemp = join(temp, '_temp');
  mkdirSync(runnerTemp);
  const files = { GITHUB_OUTPUT: join(temp, 'output'), GITHUB_STEP_SUMMARY: join(temp, 'step_summary.md') };
  for (const f of Object.values(files)) writeFileSync(f, '');
  const env: NodeJS.ProcessEnv = {
    ...o.env,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_ACTION_PATH: o.actionDir,
    RUNNER_TEMP: runnerTemp,
    ...files,
  };
  for (const [k, v] of Object.entries(action.inputs)) {
    const given = o.inputs[k] ?? v.default ?? '';
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the runner's expression, as action.yml spells it
    env[inputVar(k)] = given === '${{ github.token }}' ? (o.githubToken ?? '') : given;
  }
  const child = spawn(o.node ?? process.execPath, [join(o.actionDir, action.runs.main)], {
    cwd: o.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const status = await new Promise<number | null>((done, fail) => {
    child.on('error', fail);
    child.on('close', (c) => done(c));
  });
  const written = readOutputFile(readFileSync(files.GITHUB_OUTPUT, 'utf8'));
  const outputs = Object.fromEntries(Object.keys(action.outputs).map((k) => [k, written[k] ?? '']));
  const code = status ?? 128;
  return {
    code,
    stdout,
    stderr,
    outputs,
    summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
    failed: code !== 0,
  };
}

/** A `::error` workflow command on the step's stdout or stderr (the runner reads both). */
export const errorCommands = (s: { stdout: string; stderr: string }): string[] =>
  `${s.stdout}\n${s.stderr}`.split('\n').filter((l) => l.startsWith('::error '));

/** GITHUB_OUTPUT's two forms: `name=value` and the multiline `name<<DELIM` … `DELIM`. */
export function readOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line) continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc?.[1] && heredoc[2]) {
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i] !== heredoc[2]) body.push(lines[i++] ?? '');
      if (i >= lines.length) throw new Error(`GITHUB_OUTPUT: unterminated ${heredoc[1]}<<${heredoc[2]}`);
      out[heredoc[1]] = body.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`GITHUB_OUTPUT: invalid line ${JSON.stringify(line)}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}
