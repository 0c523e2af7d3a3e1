/**
 * The composition root of the loop: picks the adapters (git binary, store by
 * URL, reviewer factory, system clock) for a command. Tests build LoopDeps
 * themselves with the parts they want.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { LeaseOwner } from '../core/ledger.js';
import { createGit } from '../git/index.js';
import { type Confinement, confineMode, confiner, hiddenFor } from '../io/confine.js';
import { sha256 } from '../io/hash.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { createReviewer } from '../reviewers/index.js';
import { DEFAULT_STORE_URL, openStore } from '../store/index.js';
import { CONFIG_NAMES } from './config-loader.js';
import { crashPointFromEnv } from './crash-point.js';
import type { LoopDeps, LoopEvent } from './deps.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        clearTimeout(t);
        resolve();
      };
      // The listener goes with the sleep: an idle worker polls all day on one signal.
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export function processOwner(): LeaseOwner {
  const host = hostname();
  return { id: `${host}:${process.pid}:${randomBytes(4).toString('hex')}`, host, pid: process.pid };
}

/** Time-ordered, unique run ids: `r` + base36 time + random. */
export const newRunId = (): string => `r${Date.now().toString(36)}${randomBytes(5).toString('hex')}`;

/**
 * The ledger URL: --store, else REVLOOP_STORE, else the `store:` key of the
 * config in the working tree, else the embedded default. (The ledger is
 * needed before any commit is resolved, so it cannot come from the base commit.)
 */
export function storeUrlFor(repoRoot: string, flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag) return flag;
  if (env.REVLOOP_STORE) return env.REVLOOP_STORE;
  const store = workingTreeConfig(repoRoot)?.store;
  return typeof store === 'string' ? store : DEFAULT_STORE_URL;
}

/**
 * The config in the working tree, parsed but not validated, for the few
 * machine-side keys needed before any commit is resolved (`store`, `pool`);
 * null when there is none or it does not parse (admission reports it, with its key).
 */
export function workingTreeConfig(repoRoot: string): Record<string, unknown> | null {
  for (const name of CONFIG_NAMES) {
    const p = join(repoRoot, name);
    if (!existsSync(p)) continue;
    try {
      const raw: unknown = name.endsWith('.json')
        ? JSON.parse(readFileSync(p, 'utf8'))
        : parseYaml(readFileSync(p, 'utf8'));
      return raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }
  return null;
}

export async function openRepoStore(
  repoRoot: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  mode: { readonly?: boolean } = {},
): Promise<Store> {
  return openStore(storeUrlFor(repoRoot, flag, env), { repoRoot, userUrl: true, readonly: mode.readonly });
}

export interface ComposeOptions {
  store: Store;
  repoRoot: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
  onEvent?: ((e: LoopEvent) => void) | undefined;
  leaseTtlMs?: number | undefined;
  /** `review --require-confined`: as REVLOOP_CONFINE=require. */
  requireConfined?: boolean | undefined;
  /** Where the one line saying processes run unconfined goes (default stderr). */
  warn?: ((line: string) => void) | undefined;
}

export function composeDeps(o: ComposeOptions): LoopDeps {
  const random = { next: () => randomBytes(4).readUInt32BE(0) / 2 ** 32 };
  return {
    store: o.store,
    repoRoot: o.repoRoot,
    git: createGit(),
    clock: systemClock,
    random,
    hash: sha256,
    owner: processOwner(),
    createReviewer,
    env: o.env,
    leaseTtlMs: o.leaseTtlMs ?? Number(o.env.REVLOOP_LEASE_MS ?? 30_000),
    stateDir: (root) => join(root, '.revloop'),
    onEvent: o.onEvent,
    crashPoint: crashPointFromEnv(o.env.REVLOOP_CRASH_AT, () => process.kill(process.pid, 'SIGKILL')),
    signal: o.signal,
    newRunId,
    confinement: lazyConfinement(o),
  };
}

/** The controller's confinement, decided on first use (a command that starts no process never probes). */
function lazyConfinement(o: ComposeOptions): () => Confinement | null {
  let get: (() => Confinement | null) | null = null;
  return () => {
    get ??= confiner(
      confineMode(o.env, o.requireConfined),
      () => hiddenFor(o.repoRoot),
      o.warn ?? ((line) => process.stderr.write(line)),
      o.env.PATH,
    );
    return get();
  };
}
