/**
 * The pool's leases and `revloop gc`: a lane is held by one run at a time,
 * across processes and within one; a holder's death frees it (the kernel
 * drops the lock, even on SIGKILL); gc removes exactly the lanes no live run
 * holds, with their registrations.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reusableRegistration } from '../../src/git/worktree-files.js';
import { takeLane } from '../../src/loop/checkout/pool/lanes.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';
import { ensureBuilt, ROOT, runCli, testEnv } from '../loop/helpers.js';

// The holders and the CLI run the built code; a build on a busy machine takes minutes.
beforeAll(() => ensureBuilt(), 600_000);
const repos: TestRepo[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const r of repos) await r.cleanup();
});

async function repoWithCommit(): Promise<TestRepo> {
  const r = await makeRepo();
  repos.push(r);
  r.write('a.txt', 'a\n');
  r.commit('base');
  return r;
}

/** A process that takes a lane of `pool` and holds it until killed; resolves with the lane's dir. */
function holder(pool: string, common: string, runId: string): Promise<{ child: ChildProcess; dir: string }> {
  const code = `
    import(${JSON.stringify(join(ROOT, 'dist/loop/checkout/pool/lanes.js'))}).then(({ takeLane }) => {
      const lane = takeLane({ pool: ${JSON.stringify(pool)}, size: 1, common: ${JSON.stringify(common)}, runId: ${JSON.stringify(runId)}, token: 1 });
      process.stdout.write((lane ? lane.dir : 'none') + '\\n');
      // Held for the process's life: a lane nothing references is collected, and its lock closed with it.
      globalThis.heldLane = lane;
      setInterval(() => {}, 1000);
    });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve({ child, dir: out.trim() });
    });
    child.on('exit', (c) => reject(new Error(`holder exited ${c}`)));
  });
}

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null ? r() : c.on('exit', () => r())));

describe('pool leases', () => {
  it('one process: each run gets its own lane, and none when all are held', async () => {
    const r = await repoWithCommit();
    const common = join(r.dir, '.git');
    const pool = join(common, 'revloop', 'pool');
    const req = { pool, size: 2, common, token: 1 };
    const a = takeLane({ ...req, runId: 'ra' });
    const b = takeLane({ ...req, runId: 'rb' });
    expect([a?.index, b?.index]).toEqual([0, 1]);
    expect(takeLane({ ...req, runId: 'rc' })).toBeNull();
    a?.release();
    expect(takeLane({ ...req, runId: 'rd' })?.dir).toBe(join(pool, 'lane-0-rd-1'));
    b?.release();
  });

  it('two processes never hold one lane, and a SIGKILLed holder frees it', { timeout: 120_000 }, async () => {
    const r = await repoWithCommit();
    const common = join(r.dir, '.git');
    const pool = join(common, 'revloop', 'pool');
    const held = await holder(pool, common, 'rother');
    expect(held.dir).toBe(join(pool, 'lane-0-rother-1'));
    expect(takeLane({ pool, size: 1, common, runId: 'rme', token: 1 })).toBeNull();
    held.child.kill('SIGKILL');
    await exited(held.child);
    const mine = takeLane({ pool, size: 1, common, runId: 'rme', token: 1 });
    expect(mine?.dir).toBe(join(pool, 'lane-0-rme-1'));
    mine?.release();
  });

  it('gc removes the checkouts of lanes no live run holds, and keeps a held one', {
    timeout: 120_000,
  }, async () => {
    const r = await repoWithCommit();
    const common = join(r.dir, '.git');
    const pool = join(common, 'revloop', 'pool');
    // Lane 0: held by a live run. Lane 1: left by a run that ended (its checkout locked, even).
    const held = await holder(pool, common, 'rlive');
    r.git(['worktree', 'add', '--detach', '--quiet', held.dir, 'HEAD']);
    const second = takeLane({ pool, size: 2, common, runId: 'rdone', token: 3 });
    if (second?.index !== 1) throw new Error('lane 1 was not free');
    second.release();
    r.git(['worktree', 'add', '--detach', '--quiet', second.dir, 'HEAD']);
    r.git(['worktree', 'lock', second.dir]);
    mkdirSync(join(pool, 'trash-1-2-x'), { recursive: true });

    const res = await runCli(['gc', '--json'], { cwd: r.dir, env: testEnv() });
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { removed: string[]; held: string[] };
    expect(out.held).toEqual([held.dir]);
    expect(out.removed.sort()).toEqual([second.dir, join(pool, 'trash-1-2-x')].sort());
    expect(existsSync(second.dir)).toBe(false);
    const listed = r.git(['worktree', 'list', '--porcelain']);
    expect(listed).not.toContain(second.dir);
    expect(listed).toContain(held.dir);
    expect(existsSync(join(pool, 'lane-1.lock')), 'lock files stay').toBe(true);
  });
});

describe("a lane's registration", () => {
  it("is found from the repository's records, never from the .git a role rewrote in the checkout", async () => {
    const r = await repoWithCommit();
    const common = realpathSync(join(r.dir, '.git'));
    const out = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-lanes-')));
    const [a, b] = [join(out, 'lane-0-ra-1'), join(out, 'lane-1-rb-1')];
    r.git(['worktree', 'add', '-q', '--detach', a]);
    r.git(['worktree', 'add', '-q', '--detach', b]);
    const own = reusableRegistration(common, a);
    const other = reusableRegistration(common, b);
    expect(own).not.toBeNull();
    expect(own).not.toBe(other);
    // A role in lane 0 points its checkout at lane 1's registration.
    writeFileSync(join(a, '.git'), `gitdir: ${other}\n`);
    expect(reusableRegistration(common, a)).toBe(own);
  });
});
