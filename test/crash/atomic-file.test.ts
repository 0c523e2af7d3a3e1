/**
 * Invariant 5's file half: every file revloop writes goes through
 * writeFileAtomic (temp file, fsync, rename, directory fsync). On an error it
 * leaves no temp file and the old file untouched; a reader racing a writer in
 * another process, or looking after the writer was SIGKILLed mid-write, only
 * ever sees a whole old or a whole new file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { writeFileAtomic, writeFileAtomicAsync } from '../../src/io/atomic-file.js';
import { ensureBuilt, ROOT } from './cli.js';

beforeAll(ensureBuilt, 600_000);

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});
const fresh = () => {
  dir = mkdtempSync(join(tmpdir(), 'revloop-atomic-'));
  return dir;
};

/** Temp files of the helper: `.<name>.<pid>.<random>.tmp`. */
const temps = (d: string) => readdirSync(d).filter((f) => f.endsWith('.tmp'));

test('writes the bytes and the mode, creating the directory', () => {
  const path = join(fresh(), 'a', 'b', 'key.pem');
  writeFileAtomic(path, 'secret\n', { mode: 0o600 });
  expect(readFileSync(path, 'utf8')).toBe('secret\n');
  expect(statSync(path).mode & 0o777).toBe(0o600);
  writeFileAtomic(path, new Uint8Array([1, 2, 3]));
  expect([...readFileSync(path)]).toEqual([1, 2, 3]);
  expect(temps(join(dir, 'a', 'b'))).toEqual([]);
});

test('an error while writing leaves no temp file and the old file untouched', () => {
  const path = join(fresh(), 'record.json');
  writeFileSync(path, 'old\n');
  // A buffer that fails after the helper has started writing it.
  let reads = 0;
  class Failing extends Uint8Array {
    override get length(): number {
      if (++reads > 2) throw new Error('disk went away');
      return super.length;
    }
  }
  const data = new Failing(1 << 20).fill(0x61);
  expect(() => writeFileAtomic(path, data)).toThrow('disk went away');
  expect(readFileSync(path, 'utf8')).toBe('old\n');
  expect(temps(dir)).toEqual([]);
});

test('an error on rename (the target is a directory) leaves no temp file', () => {
  const path = join(fresh(), 'taken');
  mkdirSync(path);
  writeFileSync(join(path, 'inside'), 'x');
  expect(() => writeFileAtomic(path, 'new')).toThrow();
  expect(readdirSync(dir).sort()).toEqual(['taken']);
  expect(readFileSync(join(path, 'inside'), 'utf8')).toBe('x');
});

test('the async variant: same bytes and mode, and on a failed rename no temp file', async () => {
  const path = join(fresh(), 'p', 'prompt.txt');
  await writeFileAtomicAsync(path, 'prompt\n', { mode: 0o600 });
  expect(readFileSync(path, 'utf8')).toBe('prompt\n');
  expect(statSync(path).mode & 0o777).toBe(0o600);
  await writeFileAtomicAsync(path, new Uint8Array([1, 2, 3]));
  expect([...readFileSync(path)]).toEqual([1, 2, 3]);
  const taken = join(dir, 'p', 'taken');
  mkdirSync(taken);
  await expect(writeFileAtomicAsync(taken, 'new')).rejects.toThrow();
  expect(readdirSync(join(dir, 'p')).sort()).toEqual(['prompt.txt', 'taken']);
});

/** A writer process rewriting `path` with alternating whole versions, forever. */
function writer(path: string): ChildProcess {
  const script = `
    import { writeFileAtomic } from ${JSON.stringify(join(ROOT, 'dist/io/atomic-file.js'))};
    const versions = [Buffer.alloc(3 << 20, 0x61), Buffer.alloc(1 << 20, 0x62)];
    for (const v of versions) v.write('END', v.length - 3);
    process.stdout.write('ready\\n');
    for (let i = 0; ; i++) writeFileAtomic(${JSON.stringify(path)}, versions[i % 2]);
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** A whole version: all one letter, of that version's length, ending in END. */
function whole(b: Buffer): boolean {
  const letter = b[0];
  const size = letter === 0x61 ? 3 << 20 : 1 << 20;
  if (b.length !== size || b.subarray(b.length - 3).toString() !== 'END') return false;
  for (let i = 0; i < b.length - 3; i += 4096) if (b[i] !== letter) return false;
  return true;
}

const ready = (c: ChildProcess) =>
  new Promise<void>((res, rej) => {
    c.stdout?.once('data', () => res());
    c.once('exit', (code) => rej(new Error(`writer exited ${code}`)));
  });

test('a reader racing a writer in another process never sees a partial file', async () => {
  const path = join(fresh(), 'report.json');
  const w = writer(path);
  try {
    await ready(w);
    const seen = new Set<number>();
    let reads = 0;
    const until = Date.now() + 20_000;
    // Read until both versions were seen (so the reads really raced the renames).
    while (seen.size < 2 && Date.now() < until) {
      let b: Buffer;
      try {
        b = readFileSync(path);
      } catch {
        await new Promise((r) => setTimeout(r, 2));
        continue; // not written yet
      }
      reads++;
      expect(whole(b)).toBe(true);
      seen.add(b[0] ?? 0);
    }
    expect(reads).toBeGreaterThan(1);
    expect(seen.size).toBe(2);
  } finally {
    w.kill('SIGKILL');
  }
});

test('a writer SIGKILLed mid-write leaves the target whole (a stray temp file at most)', async () => {
  const path = join(fresh(), 'escalation.json');
  writeFileAtomic(path, Buffer.concat([Buffer.alloc((1 << 20) - 3, 0x62), Buffer.from('END')]));
  for (let k = 0; k < 8; k++) {
    const w = writer(path);
    await ready(w);
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 40));
    w.kill('SIGKILL');
    await new Promise((r) => w.once('exit', r));
    expect(whole(readFileSync(path))).toBe(true);
    // Only a killed writer can leave a temp file, and never under the target's name.
    for (const t of temps(dir)) expect(t.startsWith('.escalation.json.')).toBe(true);
  }
});
