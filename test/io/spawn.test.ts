/**
 * Process start (src/io/spawn.ts): the posix_spawn path and child_process
 * must behave alike for everything revloop relies on: output, exit codes,
 * signals, stdin, start errors, the child's signal state, and nothing left
 * behind (no zombie, no open descriptor).
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { nativeSpawn, type SpawnedProcess, spawnProcess } from '../../src/io/spawn.js';

const tmp = mkdtempSync(join(tmpdir(), 'revloop-spawn-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

function collect(child: SpawnedProcess): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr }));
  });
}

const node = (script: string) => [process.execPath, ['-e', script]] as const;
const env = { PATH: process.env.PATH };

// REVLOOP_NATIVE_SPAWN=0 runs the whole suite on child_process (what a machine without a
// compiler gets); otherwise the native module must be there.
const nativeOff = process.env.REVLOOP_NATIVE_SPAWN === '0';

test('the native module is built and used on this machine (CI installs the toolchain)', () => {
  expect(process.platform).toBe('linux');
  if (nativeOff) expect(nativeSpawn()).toBeNull();
  else expect(nativeSpawn()).not.toBeNull();
});

describe.each(nativeOff ? (['node'] as const) : (['native', 'node'] as const))('via %s', (via) => {
  const run = (
    file: string,
    args: readonly string[],
    more: Partial<Parameters<typeof spawnProcess>[2]> = {},
  ) => spawnProcess(file, args, { env, stdin: 'ignore', via, ...more });

  test('stdout and stderr apart, exit code 0', async () => {
    const [f, a] = node("process.stdout.write('out'); process.stderr.write('err')");
    const r = await collect(run(f, a));
    expect(r).toMatchObject({ code: 0, signal: null, stderr: 'err' });
    expect(r.stdout.toString()).toBe('out');
  });

  test('a nonzero exit code', async () => {
    const [f, a] = node('process.exit(3)');
    expect(await collect(run(f, a))).toMatchObject({ code: 3, signal: null });
  });

  test('killed: code null and the signal', async () => {
    const [f, a] = node('setTimeout(() => {}, 60000)');
    const child = run(f, a);
    const ended = collect(child);
    expect(child.kill('SIGKILL')).toBe(true);
    expect(await ended).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(child.kill('SIGKILL')).toBe(false);
  });

  test('8 MB of output, and 2 MB through stdin, arrive whole', async () => {
    const [f, a] = node("process.stdout.write(Buffer.alloc(8 << 20, 'x'))");
    const big = await collect(run(f, a));
    expect(big.stdout.length).toBe(8 << 20);
    const input = Buffer.alloc(2 << 20, 'y');
    const [g, b] = node('process.stdin.pipe(process.stdout)');
    const child = run(g, b, { stdin: 'pipe' });
    child.stdin?.end(input);
    const echoed = await collect(child);
    expect(echoed.stdout.equals(input)).toBe(true);
  });

  test('stdin ignored reads end of file', async () => {
    const [f, a] = node(
      "let n = 0; process.stdin.on('data', (c) => (n += c.length)).on('end', () => console.log(n))",
    );
    expect((await collect(run(f, a))).stdout.toString().trim()).toBe('0');
  });

  test('exactly the given environment', async () => {
    const [f, a] = node('console.log(JSON.stringify([process.env.REVLOOP_X, process.env.HOME]))');
    const r = await collect(run(f, a, { env: { PATH: process.env.PATH, REVLOOP_X: 'a b=c' } }));
    expect(JSON.parse(r.stdout.toString())).toEqual(['a b=c', null]);
  });

  test('a bare name is looked up along the given PATH', async () => {
    const dir = mkdtempSync(join(tmp, 'bin-'));
    writeFileSync(join(dir, 'revloop-tool'), '#!/bin/sh\necho found "$@"\n');
    chmodSync(join(dir, 'revloop-tool'), 0o755);
    const r = await collect(run('revloop-tool', ['x'], { env: { PATH: `${dir}:/usr/bin:/bin` } }));
    expect(r.stdout.toString()).toBe('found x\n');
  });

  test("Node's signal state is not inherited: no standard signal ignored, none blocked", async () => {
    // Node ignores SIGPIPE; a git piped into a closed reader must die of it as from a shell.
    // (glibc's posix_spawn leaves its two internal signals, 32 and 33, ignored; every glibc
    // program installs its own handlers for them at start.)
    const r = await collect(run('/bin/cat', ['/proc/self/status']));
    const field = (name: string) =>
      BigInt(`0x${r.stdout.toString().match(new RegExp(`^${name}:\\s*([0-9a-f]+)$`, 'm'))?.[1]}`);
    const standard = (1n << 31n) - 1n; // signals 1 to 31
    expect(field('SigIgn') & standard).toBe(0n);
    expect(field('SigBlk')).toBe(0n);
  });

  test.each([
    ['ENOENT', () => 'revloop-no-such-command'],
    [
      'EACCES',
      () => {
        const p = join(tmp, `not-executable-${via}`);
        writeFileSync(p, '#!/bin/sh\n');
        chmodSync(p, 0o644);
        return p;
      },
    ],
  ])('a command that cannot start: an %s error, after listeners are attached', async (code, file) => {
    const child = run(file(), []);
    const err = await new Promise<NodeJS.ErrnoException>((resolve) => child.on('error', resolve));
    expect(err.code).toBe(code);
    expect(err.message).toContain(code);
  });

  test('fifty at once: every one ends, none is left a zombie, no descriptor stays open', async () => {
    const fds = () => readdirSync('/proc/self/fd').length;
    const before = fds();
    const [f, a] = node('process.stdout.write(String(process.pid))');
    const ends = await Promise.all(Array.from({ length: 50 }, () => collect(run(f, a))));
    expect(ends.every((e) => e.code === 0)).toBe(true);
    const pids = ends.map((e) => Number(e.stdout.toString()));
    // Reaped: a zombie would still have its /proc entry.
    for (const pid of pids) expect(() => readFileSync(`/proc/${pid}/stat`)).toThrow();
    await new Promise((r) => setTimeout(r, 20));
    expect(fds()).toBeLessThanOrEqual(before);
  });
});
