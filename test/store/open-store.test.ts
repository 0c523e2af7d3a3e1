/**
 * The factory: URL schemes, relative SQLite paths, the injected clock, and
 * lazy drivers (a memory or Postgres ledger never loads SQLite).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STORE_URL, openStore } from '../../src/store/index.js';
import { compileStore } from './fixtures/compile.js';
import { admitInput, owner } from './fixtures/data.js';

const dir = mkdtempSync(join(tmpdir(), 'revloop-open-'));
let compiled: ReturnType<typeof compileStore>;
beforeAll(() => {
  compiled = compileStore();
});
afterAll(() => {
  compiled?.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe('openStore', () => {
  it('opens sqlite relative to the repo root, creating the directory (default .revloop/ledger.db)', async () => {
    const s = await openStore(DEFAULT_STORE_URL, { repoRoot: dir });
    expect(s.kind).toBe('sqlite');
    await s.close();
    expect(existsSync(join(dir, '.revloop', 'ledger.db'))).toBe(true);
    const abs = join(dir, 'abs', 'deep', 'l.db');
    await (await openStore(`sqlite:${abs}`, { repoRoot: '/nonexistent' })).close();
    expect(existsSync(abs)).toBe(true);
  });

  it('rejects an unknown scheme as a usage error without echoing credentials', async () => {
    const err = await openStore('mysql://bob:hunter2@db/x').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'usage' });
    expect((err as Error).message).not.toContain('hunter2');
  });

  for (const url of ['memory:', 'sqlite:clock/ledger.db']) {
    it(`${url} judges lease expiry on the injected clock`, async () => {
      let t = 1_000_000;
      const s = await openStore(url, { repoRoot: dir, now: () => t });
      try {
        const a = await s.admit(admitInput());
        if (a.kind !== 'created') throw new Error('no run');
        expect(a.run.createdAt).toBe(1_000_000);
        const l1 = (await s.acquireLease(a.run.id, owner('a'), 5_000))!;
        expect(l1.expiresAt).toBe(1_005_000);
        t += 4_999;
        expect(await s.acquireLease(a.run.id, owner('b'), 5_000)).toBeNull();
        t += 1;
        expect((await s.acquireLease(a.run.id, owner('b'), 5_000))?.token).toBe(2);
      } finally {
        await s.close();
      }
    });
  }

  it('loads neither driver for memory:, and not SQLite for sqlite-free work', async () => {
    const probe = `
      import { createRequire } from 'node:module';
      const { openStore } = await import(${JSON.stringify(compiled.index)});
      const s = await openStore('memory:');
      await s.close();
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        sqlite: loaded.some((k) => k.includes('better-sqlite3')),
        pg: loaded.some((k) => /node_modules[\\\\/]pg[\\\\/]/.test(k)),
      }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', probe]);
    expect(JSON.parse(stdout)).toEqual({ sqlite: false, pg: false });
  });
});
