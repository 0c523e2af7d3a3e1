/**
 * Runs the `shell: bash` steps of a composite action.yml the way the GitHub
 * Actions runner does, so a test sees what a workflow would see:
 *
 * - `${{ ... }}` in `run:`, `env:`, `working-directory:` are evaluated before
 *   the step starts (inputs with their defaults, outputs of earlier steps; a
 *   skipped step's outputs are empty strings), as the runner's template
 *   evaluation does.
 * - The script is written to a file and run as
 *   `bash --noprofile --norc -eo pipefail FILE`, GitHub's documented
 *   command for `shell: bash` ("Workflow syntax for GitHub Actions",
 *   jobs.<job_id>.steps[*].shell, the table of built-in shells).
 * - GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV and GITHUB_PATH are
 *   temp files; GITHUB_OUTPUT is read back in both of its documented
 *   forms (`name=value` and `name<<DELIMITER` … `DELIMITER`).
 * - A step whose `if:` is false is skipped; after a failed step the later
 *   steps are skipped (the implicit `success()`), and the action fails.
 *
 * Only the expression forms action.yml uses are supported; anything else
 * throws, so a new expression in action.yml cannot be silently mis-read.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

interface ActionStep {
  id?: string;
  if?: string;
  shell?: string;
  'working-directory'?: string;
  env?: Record<string, string>;
  run?: string;
}

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export interface StepResult {
  id: string;
  /** Null when the step was skipped. */
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  /** The script exactly as bash ran it (after expression evaluation). */
  script: string;
}

export interface ActionResult {
  steps: StepResult[];
  step(id: string): StepResult;
  /** The action's own outputs (`outputs:` of action.yml). */
  outputs: Record<string, string>;
  summary: string;
  failed: boolean;
}

export interface RunActionOptions {
  actionPath: string;
  inputs: Record<string, string>;
  /** The job's working directory (GITHUB_WORKSPACE); `working-directory` resolves against it. */
  workspace: string;
  /** Extra environment of the job (PATH, GITHUB_BASE_REF, credentials). */
  env: NodeJS.ProcessEnv;
}

/** GitHub's `shell: bash` command line, with `{0}` the script file. */
export const BASH_FLAGS = ['--noprofile', '--norc', '-eo', 'pipefail'] as const;

export function runAction(o: RunActionOptions): ActionResult {
  const action = parse(readFileSync(o.actionPath, 'utf8')) as ActionYml;
  if (action.runs.using !== 'composite') throw new Error('only composite actions are supported');
  const temp = mkdtempSync(join(tmpdir(), 'revloop-runner-'));
  const runnerTemp = join(temp, '_temp');
  mkdirSync(runnerTemp);
  const summary = join(temp, 'step_summary.md');
  writeFileSync(summary, '');
  const inputs: Record<string, string> = {};
  for (const [k, v] of Object.entries(action.inputs)) inputs[k] = o.inputs[k] ?? v.default ?? '';
  for (const k of Object.keys(o.inputs))
    if (!(k in action.inputs)) throw new Error(`action.yml has no input "${k}"`);

  const stepOutputs: Record<string, Record<string, string>> = {};
  const results: StepResult[] = [];
  let failed = false;
  action.runs.steps.forEach((step, i) => {
    const id = step.id ?? `__run_${i}`;
    stepOutputs[id] = {};
    const ctx = { inputs, steps: stepOutputs };
    const skipped = failed || (step.if !== undefined && !evalCondition(step.if, ctx));
    if (skipped || step.run === undefined) {
      results.push({ id, code: null, stdout: '', stderr: '', outputs: {}, script: '' });
      return;
    }
    if (step.shell !== 'bash') throw new Error(`step ${id}: only shell: bash is emulated`);
    const script = substitute(step.run, ctx);
    const file = join(runnerTemp, `${id}-${i}.sh`);
    writeFileSync(file, script);
    const files = {
      GITHUB_OUTPUT: join(temp, `output-${i}`),
      GITHUB_ENV: join(temp, `env-${i}`),
      GITHUB_PATH: join(temp, `path-${i}`),
    };
    for (const f of Object.values(files)) writeFileSync(f, '');
    const env: NodeJS.ProcessEnv = {
      ...o.env,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: o.workspace,
      RUNNER_TEMP: runnerTemp,
      GITHUB_STEP_SUMMARY: summary,
      ...files,
    };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = substitute(v, ctx);
    const cwd = resolve(o.workspace, substitute(step['working-directory'] ?? '.', ctx));
    const res = spawnSync('bash', [...BASH_FLAGS, file], { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (res.error) throw res.error;
    const outputs = readOutputFile(readFileSync(files.GITHUB_OUTPUT, 'utf8'));
    stepOutputs[id] = outputs;
    const code = res.status ?? 128;
    if (code !== 0) failed = true;
    results.push({ id, code, stdout: res.stdout, stderr: res.stderr, outputs, script });
  });

  const ctx = { inputs, steps: stepOutputs };
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([k, v]) => [k, substitute(v.value, ctx)]),
  );
  return {
    steps: results,
    step(id) {
      const s = results.find((r) => r.id === id);
      if (!s) throw new Error(`no step ${id}`);
      return s;
    },
    outputs,
    summary: readFileSync(summary, 'utf8'),
    failed,
  };
}

interface Ctx {
  inputs: Record<string, string>;
  steps: Record<string, Record<string, string>>;
}

/** `inputs.NAME` or `steps.ID.outputs.NAME`; a missing output is '' as on the runner. */
function lookup(expr: string, ctx: Ctx): string {
  const e = expr.trim();
  let m = /^inputs\.([A-Za-z0-9_-]+)$/.exec(e);
  if (m?.[1] !== undefined) {
    const v = ctx.inputs[m[1]];
    if (v === undefined) throw new Error(`unknown input in expression: ${e}`);
    return v;
  }
  m = /^steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)$/.exec(e);
  if (m?.[1] !== undefined && m[2] !== undefined) return ctx.steps[m[1]]?.[m[2]] ?? '';
  throw new Error(`expression not emulated: ${e}`);
}

function substitute(text: string, ctx: Ctx): string {
  return text.replace(/\$\{\{([^}]*)\}\}/g, (_, e: string) => lookup(e, ctx));
}

/**
 * `X == 'lit'` / `X != 'lit'`, joined by `&&` (the forms action.yml uses), with
 * or without `${{ }}`. Anything else is refused rather than guessed.
 */
function evalCondition(cond: string, ctx: Ctx): boolean {
  const c = cond
    .trim()
    .replace(/^\$\{\{(.*)\}\}$/s, '$1')
    .trim();
  return c.split('&&').every((term) => evalComparison(term.trim(), cond, ctx));
}

function evalComparison(term: string, cond: string, ctx: Ctx): boolean {
  const m = /^(\S+)\s*(==|!=)\s*'([^']*)'$/.exec(term);
  if (!m?.[1] || !m[2] || m[3] === undefined) throw new Error(`condition not emulated: ${cond}`);
  // GitHub compares strings case-insensitively.
  const eq = lookup(m[1], ctx).toLowerCase() === m[3].toLowerCase();
  return m[2] === '==' ? eq : !eq;
}

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
