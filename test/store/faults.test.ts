/**
 * Storage faults surface as one named error each, and nothing is written:
 * a read-only ledger, a ledger locked past the busy timeout by another
 * process, a corrupt file, a full disk (SQLITE_FULL through max_page_count).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { compileStore } from './fixtures/compile.js';
import { admitInput, snapshot } from './fixtures/data.js';

const tmp = mkdtempSync(join(tmpdir(), 'revloop-faults-'));
chmodSync(tmp, 0o755);
let compiled: ReturnType<typeof compileStore>;
beforeAll(() => {
  compiled = compileStore();
});
afterAll(() => {
  compiled?.remove();
  rmSync(tmp, { recursive: true, force: true });
});

async function seeded(name: string, runs = 1): Promise<string> {
  const path = join(tmp, name, 'ledger.db');
  const store = await openStore(`sqlite:${path}`);
  for (let i = 0; i < runs; i++) await store.admit(admitInput());
  await store.close();
  return path;
}

const countRuns = (path: string): number => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('SQLite storage faults', () => {
  it('a read-only ledger is store_readonly', async () => {
    const path = await seeded('ro');
    const dir = join(tmp, 'ro');
    // Root ignores file modes, so try the ledger as an unprivileged user then.
    const asRoot = process.getuid?.() === 0;
    chmodSync(path, 0o444);
    chmodSync(dir, 0o555);
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(import.meta.dirname, 'fixtures', 'open-admit.mjs'), compiled.index, `sqlite:${path}`],
        asRoot ? { uid: 65534, gid: 65534 } : {},
      );
      const res = JSON.parse(stdout) as { code: string; message: string };
      expect(res.code).toBe('store_readonly');
      expect(res.message).toContain(path);
      expect(res.message.split('\n')).toHaveLength(1);
      const sub = await promisify(execFile)(
        process.execPath,
        [
          join(import.meta.dirname, 'fixtures', 'open-admit.mjs'),
          compiled.index,
          `sqlite:${join(dir, 'new', 'ledger.db')}`,
        ],
        asRoot ? { uid: 65534, gid: 65534 } : {},
      );
      expect(JSON.parse(sub.stdout)).toMatchObject({ code: 'store_readonly' });
    } finally {
      chmodSync(dir, 0o755);
      chmodSync(path, 0o644);
    }
    expect(countRuns(path)).toBe(1);
  });

  it('a ledger locked by another process past the busy timeout is store_locked, and works once released', async () => {
    const path = await seeded('locked');
    const holder: ChildProcess = spawn(
      process.execPath,
      [join(import.meta.dirname, 'fixtures', 'lock-holder.mjs'), path],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((res, rej) => {
      holder.stdout!.once('data', () => res());
      holder.once('exit', (c) => rej(new Error(`lock holder exited ${c}`)));
    });
    const store = await openStore(`sqlite:${path}`, { busyTimeoutMs: 150 });
    try {
      const t0 = Date.now();
      const err = await store.admit(admitInput()).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'StoreLockedError', code: 'store_locked' });
      expect((err as Error).message).toContain(path);
      expect((err as Error).message).toMatch(/locked by another process/);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
      holder.stdin!.end();
      await new Promise((r) => holder.once('exit', r));
      expect((await store.admit(admitInput())).kind).toBe('created');
    } finally {
      holder.kill();
      await store.close();
    }
    expect(countRuns(path)).toBe(2);
  });

  it('a file of garbage is store_corrupt and is left untouched', async () => {
    const path = join(tmp, 'garbage', 'ledger.db');
    mkdirSync(join(tmp, 'garbage'));
    const junk = Buffer.alloc(16384, 0xab);
    writeFileSync(path, junk);
    const err = await openStore(`sqlite:${path}`).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreCorruptError', code: 'store_corrupt' });
    expect((err as Error).message).toMatch(/refusing to continue/);
    expect(readFileSync(path).equals(junk)).toBe(true);
  });

  it('a ledger with a damaged page fails the integrity check on open: store_corrupt', async () => {
    const path = await seeded('damaged', 40);
    const bytes = readFileSync(path);
    const pageSize = bytes.readUInt16BE(16);
    // Scribble over every page after the schema page: b-tree headers become nonsense.
    for (let off = pageSize; off < bytes.length; off += pageSize) bytes.fill(0x5a, off, off + 64);
    writeFileSync(path, bytes);
    const err = await openStore(`sqlite:${path}`).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'store_corrupt' });
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('a full disk is store_full and leaves nothing half-written', async () => {
    const path = await seeded('full');
    const pages = (() => {
      const db = new Database(path);
      try {
        return db.pragma('page_count', { simple: true }) as number;
      } finally {
        db.close();
      }
    })();
    const store = openSqliteStore(path, { maxPageCount: pages + 2 });
    try {
      const big = snapshot({
        protectedPaths: Array.from({ length: 4000 }, (_, i) => `src/generated/file-${i}.ts`),
      });
      const err = await store.admit(admitInput({ snapshot: big })).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'StoreFullError', code: 'store_full' });
      expect((err as Error).message).toContain(path);
    } finally {
      await store.close();
    }
    expect(countRuns(path)).toBe(1);
    const db = new Database(path, { readonly: true });
    expect((db.prepare('SELECT count(*) AS n FROM snapshots').get() as { n: number }).n).toBe(1);
    db.close();
  });
});
