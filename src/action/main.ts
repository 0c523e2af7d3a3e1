/**
 * The GitHub Action's entry (action.yml, `runs.using: node24`), bundled into
 * action/dist/index.mjs: optionally reviews and publishes, then verifies the
 * record against the checkout, running the bundled CLI beside it
 * (action/dist/revloop.mjs) as child processes. Whatever stops it, the
 * outputs `ok`, `code` and `run-id`, a summary and one `::error` line are
 * written, and the step's exit code is verify's (docs/ci.md).
 */
import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Refusal } from './refusal.js';
import { annotate, appendSummary, input, setOutputs } from './runner.js';
import { ensureSqliteDriver } from './sqlite.js';
import { readVerifyResult, verifySummary } from './summary.js';

const CLI = fileURLToPath(new URL('./revloop.mjs', import.meta.url));
/** The Node lines revloop supports (package.json engines; better-sqlite3 13 needs 22). */
const MIN_NODE = 22;

interface Inputs {
  record: string;
  notesRef: string;
  key: string;
  keysFrom: string;
  target: string;
  allowFindings: boolean;
  review: boolean;
  publish: boolean;
  requireConfined: boolean;
  githubToken: string;
  workingDirectory: string;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: 'true' | 'false'): boolean {
  const v = input(env, name, fallback);
  if (v === 'true' || v === 'false') return v === 'true';
  throw new Refusal('usage', 2, `input '${name}' must be 'true' or 'false', got '${v}'`);
}

function readInputs(env: NodeJS.ProcessEnv): Inputs {
  return {
    record: input(env, 'record', ''),
    notesRef: input(env, 'notes-ref', 'revloop'),
    key: input(env, 'key', ''),
    keysFrom: input(env, 'keys-from', ''),
    target: input(env, 'target', ''),
    allowFindings: flag(env, 'allow-findings', 'false'),
    review: flag(env, 'review', 'false'),
    publish: flag(env, 'publish', 'false'),
    requireConfined: flag(env, 'require-confined', 'true'),
    githubToken: input(env, 'github-token', ''),
    workingDirectory: input(env, 'working-directory', '.'),
  };
}

class Job {
  readonly temp: string;
  /** The environment of every revloop the action starts: the job's, without the action's inputs (the token). */
  readonly childEnv: NodeJS.ProcessEnv;
  constructor(
    readonly env: NodeJS.ProcessEnv,
    readonly cwd: string,
  ) {
    this.temp = env.RUNNER_TEMP || tmpdir();
    this.childEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('INPUT_')));
  }

  git(args: string[]): { ok: boolean; stdout: string } {
    const r = spawnSync('git', args, { cwd: this.cwd, env: this.childEnv, encoding: 'utf8' });
    return { ok: r.status === 0, stdout: r.stdout ?? '' };
  }

  /** The target branch's full refname after fetching it (a tag of the same short name can never stand in). */
  baseRef(): string | undefined {
    const base = this.env.GITHUB_BASE_REF;
    if (!base) return undefined;
    this.git(['fetch', '--quiet', 'origin', `+refs/heads/${base}:refs/remotes/origin/${base}`]);
    return `refs/remotes/origin/${base}`;
  }

  /** Runs the bundled CLI; stdout to `out` (appended with `append`) or to the step's log. */
  revloop(args: string[], o: { out?: string; append?: boolean; env?: NodeJS.ProcessEnv } = {}): number {
    const fd = o.out ? openSync(o.out, o.append ? 'a' : 'w') : 'inherit';
    try {
      const opts: SpawnSyncOptions = {
        cwd: this.cwd,
        env: { ...this.childEnv, ...o.env },
        stdio: ['ignore', fd, 'inherit'],
      };
      const r = spawnSync(process.execPath, [CLI, ...args], opts);
      if (r.error) process.stdout.write(`revloop could not start: ${r.error.message}\n`);
      return r.status ?? 70;
    } finally {
      if (typeof fd === 'number') closeSync(fd);
    }
  }
}

function refuse(env: NodeJS.ProcessEnv, r: Refusal): number {
  annotate('error', 'revloop verify', r.message);
  appendSummary(env, `### ❌ revloop verify: no record (${r.code})\n\n${r.message}\n`);
  setOutputs(env, { ok: 'false', code: r.code, 'run-id': '' });
  return r.exit;
}

const runIdOf = (file: string): string => {
  try {
    const id = (JSON.parse(readFileSync(file, 'utf8')) as { runId?: unknown }).runId;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
};

interface Reviewed {
  record: string;
  exit: number;
  runId: string;
}

function review(job: Job, inp: Inputs): Reviewed {
  const sqlite = ensureSqliteDriver(job.childEnv, job.temp);
  const env: NodeJS.ProcessEnv = sqlite ? { REVLOOP_SQLITE_DRIVER: sqlite } : {};
  const out = join(job.temp, 'revloop-record.json');
  const json = join(job.temp, 'revloop-review.json');
  rmSync(out, { force: true });
  const base = job.baseRef();
  const args = ['review', ...(base ? ['--base', base] : [])];
  if (inp.requireConfined) args.push('--require-confined');
  const exit = job.revloop([...args, '--json', '--out', out], { out: json, env });
  const runId = runIdOf(json);
  if (runId) {
    job.revloop(['export', runId, '--format', 'markdown'], {
      out: job.env.GITHUB_STEP_SUMMARY,
      append: true,
      env,
    });
    job.revloop(['export', runId, '--format', 'github'], { env });
  }
  // The review's own exit code is not the gate: verify below is.
  process.stdout.write(`review exited ${exit}\n`);
  if (runId && inp.publish) publish(job, runId, inp, env);
  else if (inp.publish) process.stdout.write('revloop publish: no run to publish\n');
  // Only a completed run writes a record; verify below says why there is none.
  return { record: existsSync(out) ? out : '', exit, runId };
}

function publish(job: Job, runId: string, inp: Inputs, env: NodeJS.ProcessEnv): void {
  const code = job.revloop(['publish', runId, '--to', 'github', '--json'], {
    out: join(job.temp, 'revloop-publish.json'),
    env: { ...env, ...(inp.githubToken ? { GITHUB_TOKEN: inp.githubToken } : {}) },
  });
  // 8 published nothing (a read-only token), 9 in part: the summary carries the result, verify is the gate.
  if (code !== 0) annotate('warning', 'revloop publish', `publish exited ${code}; see the log line above`);
}

/** Why there is no record after `review: true`, by the review's exit code. */
function noRecord(exit: number): Refusal {
  if (exit === 2)
    return new Refusal('usage', 2, "revloop review did not start (exit 2): see the review's log above");
  if (exit === 14)
    return new Refusal(
      'not_confined',
      14,
      "revloop review refused to run unconfined (exit 14): this runner has no working bwrap; install bubblewrap (docs/security.md) or set require-confined: 'false'",
    );
  return new Refusal(
    'not_completed',
    exit === 0 || exit === 1 ? 3 : exit,
    `revloop review wrote no record: the run did not complete (review exited ${exit}; see the summary)`,
  );
}

function verify(job: Job, inp: Inputs, reviewed: Reviewed | null): number {
  let record = inp.record || reviewed?.record || '';
  if (!record && reviewed) throw noRecord(reviewed.exit);
  if (!record && inp.notesRef) {
    const ref = `refs/notes/${inp.notesRef}`;
    job.git(['fetch', '--quiet', 'origin', `${ref}:${ref}`]);
    const note = job.git(['notes', `--ref=${inp.notesRef}`, 'show', 'HEAD']);
    if (note.ok) {
      record = join(job.temp, 'revloop-note.json');
      writeFileSync(record, note.stdout);
    }
  }
  const args: string[] = [];
  if (inp.key) {
    for (const k of inp.key.split('\n').map((s) => s.trim())) if (k) args.push('--key', k);
  } else {
    const keysFrom = inp.keysFrom || job.baseRef();
    if (keysFrom) args.push('--keys-from', keysFrom);
  }
  const target = inp.target || job.baseRef();
  if (target) args.push('--target', target);
  if (inp.allowFindings) args.push('--allow-findings');
  if (!record) {
    const head = job.git(['rev-parse', '--short', 'HEAD']).stdout.trim() || 'HEAD';
    throw new Refusal(
      'usage',
      2,
      `no revloop record for ${head}: pass 'record', publish one as a git note under refs/notes/${inp.notesRef}, or set 'review: true'`,
    );
  }
  const out = join(job.temp, 'revloop-verify.json');
  const exit = job.revloop(['verify', record, '--json', ...args], { out });
  const r = readVerifyResult(existsSync(out) ? readFileSync(out, 'utf8') : null, exit);
  appendSummary(job.env, verifySummary(r));
  setOutputs(job.env, { ok: String(r.ok === true), code: String(r.code), 'run-id': r.runId ?? '' });
  if (!r.ok) annotate('error', 'revloop verify', `${r.code}: ${r.reason}`);
  // A result that is not ok never passes, whatever verify exited with.
  return r.ok ? exit : exit || 70;
}

export function runAction(env: NodeJS.ProcessEnv): number {
  try {
    const major = Number(process.versions.node.split('.')[0]);
    if (major < MIN_NODE)
      throw new Refusal(
        'usage',
        2,
        `revloop needs Node.js ${MIN_NODE} or later and this step runs Node.js ${process.versions.node}`,
      );
    const inp = readInputs(env);
    const job = new Job(env, resolve(env.GITHUB_WORKSPACE || process.cwd(), inp.workingDirectory));
    const reviewed = inp.review ? review(job, inp) : null;
    return verify(job, inp, reviewed);
  } catch (err) {
    if (err instanceof Refusal) return refuse(env, err);
    // The summary or the outputs could not be written, or a bug: a gate never passes on that.
    annotate('error', 'revloop verify', `revloop action: ${String((err as Error)?.message ?? err)}`);
    try {
      setOutputs(env, { ok: 'false', code: 'error', 'run-id': '' });
    } catch {}
    return 70;
  }
}

process.exitCode = runAction(process.env);
