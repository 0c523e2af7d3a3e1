/**
 * A writer killed mid-write (SIGKILL between the temp file's open and its
 * rename) leaves its temp file in the state dir, and nothing else ever removes
 * it: `revloop gc` removes those whose writer is gone, and nothing else.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { ensureBuilt, ROOT, runCli, testEnv } from '../loop/helpers.js';

beforeAll(() => ensureBuilt(), 600_000);
const repos: TestRepo[] = [];
afterAll(async () => {
  for (const r of repos) await r.cleanup();
});

/**
 * Saves `path` the one way revloop writes a file (the built atomic-file.ts) in a
 * child whose fsync never returns, and kills it with SIGKILL there: its temp
 * file is written and never renamed. Resolves with the child's pid.
 */
async function killedMidWrite(path: string): Promise<number> {
  const code = `
    const { open } = require('node:fs/promises');
    (async () => {
      const probe = await open(${JSON.stringify(__filename)}, 'r');
      Object.getPrototypeOf(probe).sync = () => { process.stdout.write('stalled\\n'); return new Promise(() => {}); };
      await probe.close();
      const { writeFileAtomicAsync } = await import(${JSON.stringify(join(ROOT, 'dist/io/atomic-file.js'))});
      await writeFileAtomicAsync(${JSON.stringify(path)}, 'a prompt\\n');
    })();`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('stalled') && resolve());
    child.on('exit', (c) => reject(new Error(`the writer exited (${c}) before it stalled`)));
  });
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
  return child.pid as number;
}

describe('revloop gc: temp files of killed writers', () => {
  it('removes the temp file a SIGKILLed save left, keeps a live writer’s and every other file', {
    timeout: 120_000,
  }, async () => {
    const r = await makeRepo();
    repos.push(r);
    r.write('a.txt', 'a\n');
    r.commit('base');
    const prompts = join(r.dir, '.revloop', 'prompts');
    mkdirSync(prompts, { recursive: true });
    const pid = await killedMidWrite(join(prompts, 'abc.txt'));
    const left = readdirSync(prompts);
    expect(left, 'the killed save left its temp file, and no prompt').toHaveLength(1);
    const leftover = join(prompts, left[0] as string);
    expect(left[0]).toMatch(new RegExp(`^\\.abc\\.txt\\.${pid}\\.[0-9a-f]{12}\\.tmp$`));
    // A save under way in a live process (this one), a stored prompt, and a file that only looks like a temp file.
    const live = join(prompts, `.def.txt.${process.pid}.0123456789ab.tmp`);
    const kept = [live, join(prompts, 'def.txt'), join(r.dir, '.revloop', 'records', '.notes.tmp')];
    mkdirSync(join(r.dir, '.revloop', 'records'));
    for (const f of kept) writeFileSync(f, 'x');

    const res = await runCli(['gc', '--json'], { cwd: r.dir, env: testEnv() });
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { tempFiles: { path: string; pid: number }[] };
    expect(out.tempFiles).toEqual([{ path: leftover, pid }]);
    expect(existsSync(leftover)).toBe(false);
    for (const f of kept) expect(existsSync(f), f).toBe(true);

    const text = await runCli(['gc'], { cwd: r.dir, env: testEnv() });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('0 removed, 0 held\n');
  });
});
