/**
 * The ledger keeps a fix bundle only up to MAX_FIX_BUNDLE_BYTES (decision
 * 0177): one at the bound is kept, one past it is not (that fix stays on its
 * own machine, and another clone says the ledger holds no bundle of it).
 */
import { describe, expect, it } from 'vitest';
import { haveFixCommit, keepFixBundle, MAX_FIX_BUNDLE_BYTES } from '../../src/loop/run/fix-bundles.js';
import type { Git } from '../../src/ports/git.js';
import { MemoryStore } from '../../src/store/memory.js';
import { admitInput, owner } from '../store/fixtures/data.js';

async function heldRun(store: MemoryStore) {
  const a = await store.admit(admitInput());
  if (a.kind !== 'created') throw new Error('no run');
  const lease = await store.acquireLease(a.run.id, owner('w'), 60_000);
  if (!lease) throw new Error('no lease');
  return lease;
}

/** A git whose bundle of any fix is `bytes` long, and which has no commit. */
const gitBundling = (bytes: number) =>
  ({
    bundleFix: async () => Buffer.alloc(bytes, 1),
    commitExists: async () => false,
  }) as unknown as Git;

describe('the bound on a fix bundle in the ledger', () => {
  it('keeps one at the bound and none past it', async () => {
    const store = new MemoryStore();
    const lease = await heldRun(store);
    await keepFixBundle({ store, git: gitBundling(MAX_FIX_BUNDLE_BYTES) }, lease, '/wt', 'c1', 'h');
    await keepFixBundle({ store, git: gitBundling(MAX_FIX_BUNDLE_BYTES + 1) }, lease, '/wt', 'c2', 'h');
    expect((await store.getFixBundle(lease.runId, 'c1'))?.length).toBe(MAX_FIX_BUNDLE_BYTES);
    expect(await store.getFixBundle(lease.runId, 'c2')).toBeNull();
    // Another clone without the commit finds no bundle of it: it cannot have the commit.
    const deps = { store, git: gitBundling(0), repoRoot: '/other' };
    expect(await haveFixCommit(deps, lease.runId, 'c2')).toBe(false);
  });
});
