/**
 * The composition root of the loop: picks the adapters (git binary, store by
 * URL, reviewer factory, system clock) for a command. Tests build LoopDeps
 * themselves with the parts they want.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { configAt, workingTreeConfig } from '../config/unvalidated.js';
import { canonicalJson } from '../core/canonical-json.js';
import { UntrustedInputError } from '../core/errors.js';
import type { LeaseOwner } from '../core/ledger.js';
import { createGit } from '../git/index.js';
import { defaultTrustedRef, resolveUserRef } from '../git/user-ref.js';
import { type Confinement, confineMode, confiner, hiddenFor } from '../io/confine.js';
import { sha256 } from '../io/hash.js';
import type { Clock } from '../ports/clock.js';
import type { Git } from '../ports/git.js';
import type { Store } from '../ports/store.js';
import { createReviewer } from '../reviewers/index.js';
import { DEFAULT_STORE_URL, openStore } from '../store/index.js';
import { resolveBase } from './admission.js';
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
 * The commit whose config is the trusted side's word on the machine-side keys
 * (`store:`, `pool:`): the base of a review (or its head, when the run reads
 * its config from the head), else the checkout's default trusted ref.
 */
export interface TrustedCommit {
  sha: string;
  /** How it was named, for messages: `base refs/remotes/origin/main (1a2b3c4)`. */
  label: string;
}

/** How a command names its trusted commit: a review's base and config source, or the default trusted ref. */
export interface TrustFrom {
  base?: string | undefined;
  head?: string | undefined;
  configFrom?: 'base' | 'head' | undefined;
}

/** The trusted commit of a command (null when the repository has none: a new repository). */
async function trustedCommit(
  git: Git,
  repoRoot: string,
  from: TrustFrom = {},
): Promise<TrustedCommit | null> {
  if (from.configFrom === 'head' && from.head) {
    const head = await resolveUserRef(git, repoRoot, from.head, '--head');
    return { sha: head.sha, label: `head ${from.head} (${head.sha.slice(0, 7)})` };
  }
  if (from.base !== undefined || from.head !== undefined) {
    const sha = await resolveBase(git, repoRoot, from.base);
    return { sha, label: `base ${from.base ?? 'main'} (${sha.slice(0, 7)})` };
  }
  const ref = await defaultTrustedRef(git, repoRoot);
  return ref && { sha: ref.sha, label: `${ref.refname} (${ref.sha.slice(0, 7)})` };
}

export interface StoreChoice {
  url: string;
  /** Where it came from, for messages: `--store`, `REVLOOP_STORE`, `the config at ...`, `the default`. */
  from: string;
  /** The trusted config's `pool:` (undefined: the default pool). */
  pool: unknown;
}

/**
 * The ledger URL, from the trusted side only: --store, else REVLOOP_STORE,
 * else the `store:` key of the config at the trusted commit, else the default.
 * A config in the working tree is the change's when the working tree is the
 * change: it may repeat the trusted value, never name another.
 */
export async function storeUrlFor(
  git: Git,
  repoRoot: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  trusted: TrustedCommit | null,
): Promise<StoreChoice> {
  const cfg = trusted ? await configAt(git, repoRoot, trusted.sha) : null;
  const pool = cfg?.pool;
  if (flag) return { url: flag, from: '--store', pool };
  if (env.REVLOOP_STORE) return { url: env.REVLOOP_STORE, from: 'REVLOOP_STORE', pool };
  if (trusted && typeof cfg?.store === 'string')
    return { url: cfg.store, from: `the config at ${trusted.label}`, pool };
  return { url: DEFAULT_STORE_URL, from: 'the default', pool };
}

/** A URL with its password hidden, for a message. */
const shownUrl = (url: string): string => url.replace(/(:\/\/[^:@/]*):[^@/]*@/, '$1:***@');

/**
 * Refuses a working-tree config whose `store:` or `pool:` differs from the
 * trusted choice, before anything connects to either.
 */
export function refuseWorkingTreeChoice(
  repoRoot: string,
  choice: StoreChoice,
  trusted: TrustedCommit | null,
): void {
  const wt = workingTreeConfig(repoRoot);
  if (!wt) return;
  const file = wt.name;
  if (wt.config.store !== undefined && wt.config.store !== choice.url)
    throw new UntrustedInputError(
      `${file} in the working tree sets store: ${typeof wt.config.store === 'string' ? shownUrl(wt.config.store) : JSON.stringify(wt.config.store)}, but the ledger in use is ${shownUrl(choice.url)} from ${choice.from}: the ledger is chosen by --store, REVLOOP_STORE or the trusted config only`,
      { key: 'store', file },
    );
  if (wt.config.pool !== undefined && canonicalJson(wt.config.pool) !== canonicalJson(choice.pool ?? null))
    throw new UntrustedInputError(
      `${file} in the working tree sets pool: ${canonicalJson(wt.config.pool)}, but the pool in use is ${choice.pool === undefined ? 'the default' : canonicalJson(choice.pool)} from ${trusted ? `the config at ${trusted.label}` : 'the default'}: the pool is chosen by the trusted config only`,
      { key: 'pool', file },
    );
}

/**
 * Refuses a `.revloop` state directory that the change could have chosen: a
 * symlink (it would send the ledger, keys and records wherever it points), or
 * one tracked by git with entries the trusted commit does not have.
 */
export async function refuseUntrustedStateDir(
  git: Git,
  repoRoot: string,
  trusted: TrustedCommit | null,
): Promise<void> {
  const dir = join(repoRoot, STATE_DIR);
  let link = false;
  try {
    link = lstatSync(dir).isSymbolicLink();
  } catch {
    // absent: nothing to refuse
  }
  if (link)
    throw new UntrustedInputError(
      `${dir} is a symlink: revloop's state directory is never followed through a link`,
      {
        path: dir,
      },
    );
  if (!git.treeEntries) return;
  const atHead = await git.treeEntries(repoRoot, 'HEAD', STATE_DIR).catch(() => []);
  if (atHead.length === 0) return;
  const atTrusted = trusted ? await git.treeEntries(repoRoot, trusted.sha, STATE_DIR).catch(() => []) : [];
  const known = new Set(atTrusted.map((e) => `${e.mode} ${e.oid} ${e.path}`));
  // Named by its first file (a tree entry only when the change tracks an empty-looking directory).
  const foreign = atHead.filter((e) => !known.has(`${e.mode} ${e.oid} ${e.path}`));
  const added = foreign.find((e) => e.type !== 'tree') ?? foreign[0];
  if (added)
    throw new UntrustedInputError(
      `${added.path} is tracked by git in the checked-out change${trusted ? ` and differs at ${trusted.label}` : ''}: revloop's state directory is never taken from the change`,
      { path: added.path },
    );
}

const STATE_DIR = '.revloop';

/**
 * Opens the ledger the trusted side chose, after refusing anything the
 * change could have put in its way. `from` names the trusted commit (a
 * review's base); without it, the checkout's default trusted ref.
 */
export async function openRepoStore(
  repoRoot: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  mode: { readonly?: boolean } = {},
  from: TrustFrom = {},
): Promise<Store> {
  const { url } = await trustedMachineConfig(repoRoot, flag, env, from);
  return openStore(url, { repoRoot, userUrl: true, readonly: mode.readonly });
}

/** The ledger and pool the trusted side chose, with every refusal made. */
export async function trustedMachineConfig(
  repoRoot: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  from: TrustFrom = {},
): Promise<StoreChoice> {
  const git = createGit();
  const trusted = await trustedCommit(git, repoRoot, from);
  await refuseUntrustedStateDir(git, repoRoot, trusted);
  const choice = await storeUrlFor(git, repoRoot, flag, env, trusted);
  refuseWorkingTreeChoice(repoRoot, choice, trusted);
  return choice;
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

/** Where an embedded ledger's file lives (a `--store sqlite:` outside the repository is hidden too). */
function ledgerDir(store: Store): string | null {
  const path = store.kind === 'sqlite' ? (store as Store & { path?: unknown }).path : null;
  return typeof path === 'string' && isAbsolute(path) ? dirname(path) : null;
}

/** The controller's confinement, decided on first use (a command that starts no process never probes). */
function lazyConfinement(o: ComposeOptions): () => Confinement | null {
  let get: (() => Confinement | null) | null = null;
  return () => {
    get ??= confiner(
      confineMode(o.env, o.requireConfined),
      () => hiddenFor(o.repoRoot, [ledgerDir(o.store)]),
      o.warn ?? ((line) => process.stderr.write(line)),
      o.env.PATH,
    );
    return get();
  };
}
