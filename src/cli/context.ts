/** What most commands start with: the repository, its ledger, and loop deps. */
import { resolve } from 'node:path';
import { createGit } from '../git/index.js';
import { composeDeps, openRepoStore } from '../loop/compose.js';
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
): Promise<RepoContext> {
  const root = await createGit().root(resolve(io.cwd, opts.repo ?? '.'));
  const store = await openRepoStore(root, opts.store, io.env);
  const deps = composeDeps({ store, repoRoot: root, env: io.env, signal: io.stopSignal, onEvent });
  return { root, store, deps };
}
