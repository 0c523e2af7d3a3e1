/**
 * Real parts for the loop's integration tests: a repository with the config
 * and criteria committed on `main` and a change on a branch, a scriptable
 * subprocess agent (test/fixtures/agents-loop/agent.mjs) driven by a plan
 * file, the CLI run as a real process, and the loop run in-process through
 * the same composition root the CLI uses.
 *
 * ```ts
 * const r = await makeReviewRepo({ config: { reviewers: [{ name: 'c', ...r.agent }] } });
 * r.plan({ 'reviewer:c': [{ reply: { verdict: 'pass', findings: [] } }] });
 * const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
 * ```
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { loadConfigAt } from '../../src/config/loader.js';
import { replayRun } from '../../src/core/replay.js';
import { type RunReport, roundLog } from '../../src/core/run-report.js';
import { sha256 } from '../../src/io/hash.js';
import type { AdmitRequest } from '../../src/loop/admission.js';
import { composeDeps } from '../../src/loop/compose.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import { type ReviewOutcome, reviewRevision } from '../../src/loop/operations.js';
import { escalationMarkdown } from '../../src/loop/outputs/escalation.js';
import { loadRunReport } from '../../src/loop/outputs/run-report-loader.js';
import type { Store } from '../../src/ports/store.js';
import {
  renderRunSummary,
  toGithubAnnotations,
  toJunit,
  toMarkdown,
  toRdjson,
  toSarif,
} from '../../src/report/index.js';
import { openStore } from '../../src/store/index.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const AGENT = join(ROOT, 'test/fixtures/agents-loop/agent.mjs');
export const CLI = join(ROOT, 'dist/cli/main.js');

export const CRITERIA = `# Review criteria

1. Shared state must not be updated without a lock.
2. Every public function handles a missing input.
`;

/** A base file the change edits, long enough for findings to point at real lines. */
export const BASE_FILE = `export function add(a, b) {
  return a + b;
}

export function sub(a, b) {
  return a - b;
}
`;

export const HEAD_FILE = `${BASE_FILE}
let total = 0;
export async function deposit(n) {
  const seen = total;
  await Promise.resolve();
  total = seen + n;
  return total;
}
`;

/** One step of the subprocess agent (see test/fixtures/agents-loop/agent.mjs). */
export interface AgentStep {
  call?: number;
  round?: number;
  /** Only this sample of a sampled reviewer (REVLOOP_SAMPLE; 0 when absent). */
  sample?: number;
  when?: string;
  sleepMs?: number;
  exit?: number;
  stdout?: string;
  reply?: unknown;
  /** Fixer: dispute every blocker the prompt lists, with this reason. */
  disputeAll?: string;
  write?: Record<string, string>;
  actions?: (
    | 'pushMain'
    | 'tagSameName'
    | 'rmRepo'
    | 'commitOwn'
    | 'commitWrites'
    | 'commitTwice'
    | 'amend'
    | 'resetBack'
    | 'commitSymlinkOut'
    | 'symlinkOut'
    | 'commitGitlink'
    | 'conflict'
    | 'writeMain'
  )[];
}

export type Plan = Record<string, AgentStep[]>;

export interface ReviewRepo {
  repo: TestRepo;
  dir: string;
  base: string;
  head: string;
  branch: string;
  /** `{ command: [node, agent.mjs, plan.json] }` for any agent in the config. */
  agent: { command: string[] };
  /** Replaces the plan the agent follows (counts are kept). */
  plan(p: Plan): void;
  /** Calls per plan key so far. */
  counts(): Record<string, number>;
  cleanup(): Promise<void>;
}

export interface ReviewRepoOptions {
  /** The config, as an object (written as JSON, which is YAML) or as raw text. */
  config: Record<string, unknown> | string | ((agent: { command: string[] }) => Record<string, unknown>);
  /** Extra files on main. */
  files?: Record<string, string | Buffer>;
  /** Files the change writes on its branch (default: src/calc.js gets a race). */
  change?: Record<string, string | Buffer>;
  criteria?: string | null;
  branch?: string;
  /** Commit the config and criteria with the change instead of on main. */
  configOnBranch?: boolean;
  /** Write `.gitignore` with `.revloop/` (default true). */
  ignoreState?: boolean;
}

/** The review repositories a test file makes (push each as it is made), removed after its tests. */
export function reposRemovedAfterAll(): ReviewRepo[] {
  const repos: ReviewRepo[] = [];
  afterAll(async () => {
    for (const r of repos) await r.cleanup();
  });
  return repos;
}

/** Config, criteria and a base file on `main`; the change on `branch` (checked out). */
export async function makeReviewRepo(o: ReviewRepoOptions): Promise<ReviewRepo> {
  const repo = await makeRepo();
  const planDir = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-plan-')));
  const planPath = join(planDir, 'plan.json');
  const state = join(planDir, 'counts.json');
  const branch = o.branch ?? 'topic';
  const agent = { command: [process.execPath, AGENT, planPath] };
  const writePlan = (agents: Plan) =>
    writeFileSync(planPath, JSON.stringify({ state, mainRepo: repo.dir, branch, agents }));
  writePlan({});
  const config = typeof o.config === 'function' ? o.config(agent) : o.config;
  if (o.ignoreState !== false) repo.write('.gitignore', '.revloop/\n');
  const writeRules = () => {
    repo.write('revloop.config.yaml', typeof config === 'string' ? config : JSON.stringify(config, null, 2));
    if (o.criteria !== null) repo.write('REVIEW.md', o.criteria ?? CRITERIA);
  };
  if (!o.configOnBranch) writeRules();
  repo.write('src/calc.js', BASE_FILE);
  for (const [p, c] of Object.entries(o.files ?? {})) repo.write(p, c);
  const base = repo.commit('base: config, criteria, code');
  repo.git(['checkout', '-q', '-b', branch]);
  if (o.configOnBranch) writeRules();
  for (const [p, c] of Object.entries(o.change ?? { 'src/calc.js': HEAD_FILE })) repo.write(p, c);
  const head = repo.commit('change');
  return {
    repo,
    dir: repo.dir,
    base,
    head,
    branch,
    agent,
    plan: writePlan,
    counts: () => (existsSync(state) ? JSON.parse(readFileSyncUtf8(state)) : {}),
    async cleanup() {
      // Worktrees of runs live in the system temp dir, registered in the repo.
      for (const e of readdirSafe(join(tmpdir(), 'revloop-worktrees'))) {
        const wt = join(tmpdir(), 'revloop-worktrees', e);
        try {
          const gitFile = join(wt, '.git');
          if (existsSync(gitFile) && readFileSyncUtf8(gitFile).includes(repo.dir))
            rmSync(wt, { recursive: true, force: true });
        } catch {
          // another test's worktree
        }
      }
      rmSync(planDir, { recursive: true, force: true });
      await repo.cleanup();
    },
  };
}

function readFileSyncUtf8(p: string): string {
  return readFileSync(p, 'utf8');
}

function readdirSafe(p: string): string[] {
  try {
    return readdirSync(p);
  } catch {
    return [];
  }
}

export const pass = { verdict: 'pass', findings: [] };

/** A subprocess agent's passing reply that reports `costUsd` spent. */
export const paid = (costUsd: number) => ({ reply: { ...pass, usage: { costUsd } } });

/** A concrete MAJOR finding on the race in HEAD_FILE. */
export const raceFinding = (extra: Record<string, unknown> = {}) => ({
  severity: 'MAJOR',
  file: 'src/calc.js',
  line: 11,
  endLine: 14,
  claim: 'deposit reads total before an await and writes it after',
  failureScenario: 'two concurrent deposit(5) calls both read 0 and both write 5, so total ends at 5, not 10',
  ...extra,
});

export const findings = (...f: unknown[]) => ({ verdict: 'findings', findings: f });

/** The change with the race fixed (the lines of the finding rewritten). */
export const FIXED_FILE = `${BASE_FILE}
let total = 0;
let lock = Promise.resolve();
export function deposit(n) {
  lock = lock.then(() => {
    total = total + n;
    return total;
  });
  return lock;
}
`;

/** A check (committed on main) that passes once src/calc.js serialises deposits. */
export const LOCK_CHECK = `import { readFileSync } from 'node:fs';
process.exit(readFileSync('src/calc.js', 'utf8').includes('lock.then') ? 0 : 1);
`;

/** Base config: one command reviewer, fast retries. */
export function baseConfig(agent: { command: string[] }, extra: Record<string, unknown> = {}) {
  return {
    criteria: 'REVIEW.md',
    reviewers: [{ name: 'correctness', ...agent }],
    retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    timeouts: { callSeconds: 20 },
    ...extra,
  };
}

/** The environment of CLI processes and agents: the caller's, with git made deterministic. */
export function testEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...TEST_GIT_ENV, REVLOOP_STORE: undefined, ...extra };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is JSON. */
  json: Record<string, unknown> | null;
}

/** Runs `node dist/cli/main.js ...args` as a real process. */
export function runCli(
  args: string[],
  o: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: o.cwd, env: o.env ?? testEnv(), timeout: o.timeoutMs ?? 60_000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        let json: Record<string, unknown> | null = null;
        try {
          json = JSON.parse(stdout) as Record<string, unknown>;
        } catch {
          json = null;
        }
        done({ code, stdout, stderr, json });
      },
    );
  });
}

export { ensureBuilt } from '../helpers/build.js';

export interface InProcess {
  store: Store;
  deps: LoopDeps;
  close(): Promise<void>;
}

/** The CLI's composition root, in this process, on the repo's SQLite ledger (or `url`). */
export async function inProcess(
  dir: string,
  o: { url?: string; env?: NodeJS.ProcessEnv; tweak?: (d: LoopDeps) => LoopDeps } = {},
): Promise<InProcess> {
  const store = await openStore(o.url ?? 'sqlite:.revloop/ledger.db', { repoRoot: dir });
  const base = composeDeps({ store, repoRoot: dir, env: o.env ?? testEnv() });
  const deps = o.tweak ? o.tweak(base) : base;
  return { store, deps, close: () => store.close() };
}

/**
 * A `tweak` whose controller dies (throws "controller died") at one crash
 * point, holding a short lease so that a successor can take the run over.
 */
export const dyingAt =
  (point: string, leaseTtlMs: number) =>
  (d: LoopDeps): LoopDeps => ({
    ...d,
    leaseTtlMs,
    crashPoint: (name) => {
      if (name === point) throw new Error('controller died');
    },
  });

export type RunOutcome = Extract<ReviewOutcome, { kind: 'run' }> & { report: RunReport };

/** Admits and runs one review in-process; returns the run and its full report. */
export async function review(
  p: InProcess,
  dir: string,
  req: Partial<AdmitRequest> = {},
): Promise<RunOutcome> {
  const res = await reviewRevision(p.deps, { repoDir: dir, headRef: 'topic', configFrom: 'base', ...req });
  if (res.kind !== 'run') throw new Error(`admission deferred: ${res.detail}`);
  return { ...res, report: await replayedReport(p, res.run.id) };
}

/** The report of run `runId` in `p`'s ledger, its replay checked (invariant 6). */
export async function replayedReport(p: InProcess, runId: string): Promise<RunReport> {
  const report = await loadRunReport(p.store, runId);
  if (!report) throw new Error('run vanished');
  await expectReplayIdentical(p.deps, report);
  return report;
}

/** {@link replayedReport} of a run made elsewhere (by the CLI, say) in the ledger of `r`. */
export async function replayedReportIn(r: ReviewRepo, runId: string): Promise<RunReport> {
  const p = await inProcess(r.dir);
  try {
    return await replayedReport(p, runId);
  } finally {
    await p.close();
  }
}

/**
 * Invariant 6, for every run these tests make: recomputing its decisions from
 * the recorded verdicts reproduces it.
 */
export async function expectReplayIdentical(deps: LoopDeps, report: RunReport): Promise<void> {
  if (report.rounds.length === 0) return;
  const s = report.run.snapshot;
  const loaded = await loadConfigAt(
    deps.git,
    deps.repoRoot,
    s.configFrom === 'head' ? s.head : s.base,
    s.configPath,
  );
  const res = replayRun(report, loaded.criteria, sha256);
  if (!res.identical)
    throw new Error(`replay of ${report.run.id} diverged: ${JSON.stringify(res.divergence)}`);
}

/** Every output a person or CI reads a run in, by name: what a blocker must appear in. */
export function everyOutput(report: RunReport): Record<string, string> {
  return {
    terminal: renderRunSummary(report),
    markdown: toMarkdown(report),
    junit: toJunit(report),
    json: JSON.stringify(roundLog(report)),
    escalation: escalationMarkdown(report),
    sarif: JSON.stringify(toSarif(report)),
    rdjson: JSON.stringify(toRdjson(report)),
    github: toGithubAnnotations(report),
  };
}
