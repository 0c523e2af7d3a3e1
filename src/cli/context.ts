/** What most commands start with: the repository, its ledger, and loop deps. */
import { resolve } from 'node:path';
import { createGit } from '../git/index.js';
import { composeDeps, openRepoStore, type TrustFrom } from '../loop/compose.js';
import type { LoopDeps, LoopEvent } from '../loop/deps.js';
import type { Store } from '../ports/store.js';
import type { CliIO } from './io.js';

export interface RepoContext {
  root: string;
  store: Store;
  deps: LoopDeps;
}

export async function openRepo(
  io: CliIO,
  opts: { repo?: string; store?: string },
  onEvent?: (e: LoopEvent) => void,
  mode: { readonly?: boolean } = {},
  /** The trusted commit whose config may name the ledger: a review's base; else the default trusted ref. */
  from: TrustFrom = {},
  confine: { requireConfined?: boolean | undefined } = {},
): Promise<RepoContext> {
  const root = await createGit().root(resolve(io.cwd, opts.repo ?? '.'));
  const store = await openRepoStore(root, opts.store, io.env, mode, from);
  // The run being driven, for the resume hint of an interrupt or a ledger fault (main.ts).
  const noted = (e: LoopEvent) => {
    io.noteRun(e.kind === 'end' ? null : e.runId);
    onEvent?.(e);
  };
  const deps = composeDeps({
    store,
    repoRoot: root,
    env: io.env,
    signal: io.stopSignal,
    onEvent: noted,
    requireConfined: confine.requireConfined,
    warn: (line) => io.stderr(line),
  });
  return { root, store, deps };
}

/** A review's trusted commit: its base, or its head when it reads its config from there. */
export const trustFrom = (opts: { base?: string; head: string; configFrom: 'base' | 'head' }): TrustFrom => ({
  base: opts.base,
  head: opts.head,
  configFrom: opts.configFrom,
});
