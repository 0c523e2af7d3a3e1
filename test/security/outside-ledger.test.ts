/**
 * The ledger is hidden from confined processes wherever it lives: a SQLite
 * ledger the job names with `--store` outside the repository is covered like
 * the repository's own `.revloop/`. A real confined process (bwrap) started
 * through the composition root the CLI uses tries to read it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { confinedArgv, probeBwrap } from '../../src/io/confine.js';
import { composeDeps } from '../../src/loop/compose.js';
import { openStore } from '../../src/store/index.js';

const bwrapWorks = probeBwrap('/usr/bin/bwrap') === null;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!bwrapWorks)('a ledger outside the repository', () => {
  it('is not readable by a confined process', async () => {
    const root = mkdtempSync(join(tmpdir(), 'revloop-outside-ledger-'));
    // Not under /tmp or HOME, which every confined process sees as empty anyway.
    const cache = join(import.meta.dirname, '..', '..', 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const ledgerDir = mkdtempSync(join(cache, 'revloop-ledger-'));
    dirs.push(root, ledgerDir);
    const repo = join(root, 'repo');
    const checkout = join(root, 'pool', 'lane');
    for (const d of [repo, checkout]) mkdirSync(d, { recursive: true });
    const ledger = join(ledgerDir, 'ledger.db');
    const store = await openStore(`sqlite:${ledger}`, { repoRoot: repo });
    try {
      writeFileSync(join(checkout, 'probe.mjs'), '');
      const deps = composeDeps({
        store,
        repoRoot: repo,
        env: { ...process.env, REVLOOP_CONFINE: 'require' },
      });
      const c = deps.confinement?.();
      if (!c) throw new Error('no confinement');
      const argv = confinedArgv(
        c,
        { checkout, writable: true },
        ['/bin/sh', '-c', `test -e ${ledger} && echo SEEN || echo hidden`],
        process.env,
      );
      const r = spawnSync(c.bwrap, argv, { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('hidden');
    } finally {
      await store.close();
    }
  });
});
