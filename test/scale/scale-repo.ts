/**
 * What the scale tests share: an "origin" repository with one branch per pull
 * request, clones of it standing in for CI machines, and the real CLI
 * (dist/cli/main.js) run as separate processes against one ledger.
 *
 * The config is committed on main (it is read from the base commit). Every
 * agent is test/fixtures/scale-agents/agent.mjs: a diff line with BUG draws a
 * MAJOR finding, and the refuter upholds it only on a file named `*real*`, so
 * branch `pr-N` ends clear, clear-after-refutation or findings by its file.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN_JS = join(ROOT, 'dist/cli/main.js');
export const AGENT = join(ROOT, 'test/fixtures/scale-agents/agent.mjs');

export interface ScaleRepo {
  origin: TestRepo;
  /** Branch names, `pr-0` .. `pr-(n-1)`. */
  branches: string[];
  /** A new clone (a "machine"): its checkout and its own TMPDIR (worktrees live there). */
  clone(name: string): Machine;
  cleanup(): Promise<void>;
}

export interface Machine {
  dir: string;
  tmp: string;
}

/** Kinds of pull request: what the branch's one changed file holds. */
const KINDS = [
  { file: (i: number) => `src/clean-${i}.ts`, body: 'export const ok = 1;\n' },
  { file: (i: number) => `src/noise-${i}.ts`, body: 'let n = 0; // BUG? no: single-threaded\n' },
  { file: (i: number) => `src/real-${i}.ts`, body: 'counter = counter + 1; // BUG\n' },
];

// What the stand-in agent reads (its pace, its log), given on purpose.
const AGENT_ENV = 'env: [SCALE_AGENT_MIN_MS, SCALE_AGENT_MAX_MS, SCALE_AGENT_SLOW_MS, SCALE_AGENT_LOG]';
const config = (agent: string[]) => `criteria: REVIEW.md
reviewers:
  - name: correctness
    command: ${JSON.stringify(agent)}
    ${AGENT_ENV}
  - name: style
    command: ${JSON.stringify(agent)}
    ${AGENT_ENV}
refuter:
  command: ${JSON.stringify(agent)}
  ${AGENT_ENV}
budgets: { rounds: 2, wallSeconds: 600, costUsd: 1 }
timeouts: { callSeconds: 60 }
retry: { attempts: 3, baseDelayMs: 50, maxDelayMs: 500 }
# The lease and queue tests count an agent's calls one at a time; concurrency is test/review-scale's.
review: { concurrency: 1 }
`;

export async function makeScaleRepo(n: number): Promise<ScaleRepo> {
  const origin = await makeRepo();
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-scale-')));
  origin.write('REVIEW.md', '# Criteria\n\n1. Shared state is updated under a lock.\n');
  origin.write('revloop.config.yaml', config([process.execPath, AGENT]));
  origin.write('src/app.ts', 'export const app = 1;\n');
  origin.commit('base: config, criteria, app');
  const branches: string[] = [];
  for (let i = 0; i < n; i++) {
    const name = `pr-${i}`;
    const kind = KINDS[i % KINDS.length]!;
    origin.git(['checkout', '--quiet', '-b', name, 'main']);
    origin.write(kind.file(i), `// change ${i}\n${kind.body}`);
    origin.commit(`change ${i}`);
    branches.push(name);
  }
  origin.git(['checkout', '--quiet', 'main']);
  return {
    origin,
    branches,
    clone(name) {
      const dir = join(base, name);
      const tmp = join(base, `${name}-tmp`);
      mkdirSync(tmp, { recursive: true });
      execFileSync('git', ['clone', '--quiet', origin.dir, dir], { env: TEST_GIT_ENV, stdio: 'ignore' });
      // Each machine signs with the team's key; made once here so racing workers need not create it.
      execFileSync(process.execPath, [MAIN_JS, 'keygen', '--repo', dir], {
        env: cliEnv({ tmp }),
        stdio: 'ignore',
      });
      return { dir: realpathSync(dir), tmp };
    },
    async cleanup() {
      await origin.cleanup();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Environment of a CLI process on `machine`: isolated git config, its own TMPDIR, plus `extra`. */
export function cliEnv(machine: { tmp: string }, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...TEST_GIT_ENV, HOME: machine.tmp, TMPDIR: machine.tmp };
  for (const k of Object.keys(env))
    if (k.startsWith('REVLOOP_') || k.startsWith('SCALE_AGENT_')) delete env[k];
  // The stand-in agent logs to this machine's temp dir, which a confined process does not see.
  env.REVLOOP_CONFINE = 'off';
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `revloop <args>` to its end. */
export function cli(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliResult> {
  return finished(spawnCli(args, env, cwd));
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(process.execPath, [MAIN_JS, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Collects a child's output and resolves when it exits (and its pipes close). */
export function finished(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

/** `enqueue` of one branch from `machine`'s checkout (base origin/main, head origin/<branch>). */
export function enqueue(
  machine: Machine,
  store: string,
  branch: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  return cli(
    [
      'enqueue',
      '--repo',
      machine.dir,
      '--store',
      store,
      '--base',
      'origin/main',
      '--head',
      `origin/${branch}`,
      '--change',
      branch,
      '--json',
      ...extra,
    ],
    cliEnv(machine, env),
    machine.dir,
  );
}

/** Parses a worker's `--json` lines. */
export function workerLines(stdout: string): { runId: string; status: string; detached: string | null }[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { runId: string; status: string; detached: string | null });
}
