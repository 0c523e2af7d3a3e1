/**
 * The kill harness's repository and agents, driven in-process through the
 * loop's own API (for the resume and child-process tests): real git, a real
 * SQLite ledger, real subprocess agents (test/fixtures/crash-agents). A
 * "crash" is a crash point that throws: the driver unwinds without another
 * ledger write, which leaves the ledger exactly as a SIGKILL there would.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LeaseOwner } from '../../src/core/ledger.js';
import { composeDeps, processOwner } from '../../src/loop/compose.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import { type ReviewOutcome, resumeRun, reviewRevision } from '../../src/loop/operations.js';
import type { Store } from '../../src/ports/store.js';
import { openStore } from '../../src/store/index.js';
import { buildTemplate, git, gitEnv } from './template.mjs';

export class Crash extends Error {
  constructor(readonly at: string) {
    super(`crashed at ${at}`);
  }
}

/** A crash point that throws the n-th time the driver passes `name`. */
export function crashAt(name: string, nth = 1): (boundary: string) => void {
  let seen = 0;
  return (boundary) => {
    if (boundary === name && ++seen === nth) throw new Crash(name);
  };
}

/** An owner on this host whose process has exited: what a SIGKILLed controller leaves in the lease. */
export function deadOwner(): LeaseOwner {
  const pid = spawnSync(process.execPath, ['-e', '0']).pid;
  if (pid === undefined) throw new Error('could not start a process');
  return { id: `${hostname()}:${pid}:dead`, host: hostname(), pid };
}

/**
 * The store, except that the first `recordVerdict` crashes just before
 * (`before`) or just after (`after`) its transaction: the two instants around
 * a verdict that no crash point names.
 */
/**
 * `fired.callKey` names the call whose verdict the crash hit: reviewers run side by side, so
 * that is the first verdict to arrive, not always that of the first call started.
 */
export function crashAroundVerdict(
  when: 'before' | 'after',
  fired: { callKey?: string } = {},
): (s: Store) => Store {
  return (store) => {
    let done = false;
    return new Proxy(store, {
      get(target, prop) {
        if (prop === 'recordVerdict') {
          const record: Store['recordVerdict'] = async (lease, v) => {
            if (!done && when === 'before') {
              done = true;
              fired.callKey = v.callKey;
              throw new Crash('before recordVerdict');
            }
            const res = await target.recordVerdict(lease, v);
            if (!done && when === 'after') {
              done = true;
              fired.callKey = v.callKey;
              throw new Crash('after recordVerdict');
            }
            return res;
          };
          return record;
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
}

/**
 * Makes the fixture's head commit unreachable and collects it: the run
 * worktrees (which pin it) are removed, `feature` force-deleted, and git
 * garbage-collected, so a run of that head can no longer read it.
 */
export function dropFeatureHead(dir: string): void {
  for (const wt of git(dir, ['worktree', 'list', '--porcelain']).split('\n'))
    if (wt.startsWith('worktree ') && wt !== `worktree ${dir}`)
      git(dir, ['worktree', 'remove', '--force', wt.slice('worktree '.length)]);
  git(dir, ['checkout', '--quiet', 'main']);
  git(dir, ['update-ref', '-d', 'refs/heads/feature']);
  git(dir, ['reflog', 'expire', '--expire=now', '--all']);
  git(dir, ['gc', '--quiet', '--prune=now']);
}

export interface Invocation {
  at: number;
  role: string;
  name: string;
  round: string;
  callKey: string;
}

export interface LoopFixture {
  dir: string;
  base: string;
  head: string;
  env: NodeJS.ProcessEnv;
  /** A fresh store and deps, as a new process would open them; `wrap` sees the store the loop gets. */
  open(over?: Partial<LoopDeps>, wrap?: (s: Store) => Store): Promise<{ store: Store; deps: LoopDeps }>;
  review(deps: LoopDeps): Promise<Extract<ReviewOutcome, { kind: 'run' }>>;
  resume(deps: LoopDeps, runId: string): ReturnType<typeof resumeRun>;
  invocations(): Invocation[];
  cleanup(): Promise<void>;
}

export async function makeLoopFixture(
  opts: { bugs?: number; callSeconds?: number; agentEnv?: Record<string, string> } = {},
): Promise<LoopFixture> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-resume-')));
  const dir = join(root, 'repo');
  const { base, head } = buildTemplate(dir, { bugs: opts.bugs ?? 1, callSeconds: opts.callSeconds ?? 20 });
  const log = join(root, 'agents.log');
  const state = join(root, 'state');
  mkdirSync(state);
  writeFileSync(log, '');
  const env: NodeJS.ProcessEnv = {
    ...gitEnv(),
    CRASH_LOG: log,
    CRASH_SLEEP_MS: '0',
    CRASH_FLAKY: '0',
    CRASH_STATE_DIR: state,
    // The pool's checkouts live in the user's cache: the trial's own, removed with it.
    XDG_CACHE_HOME: join(root, 'cache'),
    ...opts.agentEnv,
  };
  const stores: Store[] = [];
  return {
    dir,
    base,
    head,
    env,
    async open(over = {}, wrap = (s) => s) {
      const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
      stores.push(store);
      const deps: LoopDeps = {
        ...composeDeps({ store: wrap(store), repoRoot: dir, env, leaseTtlMs: 60_000 }),
        owner: processOwner(),
        ...over,
      };
      return { store, deps };
    },
    async review(deps) {
      const res = await reviewRevision(deps, {
        repoDir: dir,
        baseRef: 'main',
        headRef: 'feature',
        configFrom: 'base',
      });
      if (res.kind !== 'run') throw new Error(`deferred: ${res.detail}`);
      return res;
    },
    resume: (deps, runId) => resumeRun(deps, runId),
    invocations: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [at, , role, name, round, callKey] = l.split(' ');
          return {
            at: Number(at),
            role: role ?? '',
            name: name ?? '',
            round: round ?? '',
            callKey: callKey ?? '',
          };
        }),
    async cleanup() {
      for (const s of stores) await s.close().catch(() => undefined);
      for (const wt of spawnSync('git', ['worktree', 'list', '--porcelain'], { cwd: dir, encoding: 'utf8' })
        .stdout.split('\n')
        .filter((l) => l.startsWith('worktree ') && l !== `worktree ${dir}`))
        rmSync(wt.slice('worktree '.length), { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    },
  };
}
