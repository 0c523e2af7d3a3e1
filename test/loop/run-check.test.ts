import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../../src/loop/run/run-check.js';
import { isAlive } from '../helpers/process.js';
import { cleanupDirs, tempDir } from '../reviewers/call-request.js';

afterAll(cleanupDirs);

const check = (run: string[], timeoutSeconds = 20) => ({ name: 'c', run, timeoutSeconds });
const node = process.execPath;

describe('runCheck', () => {
  it('records the exit code and the output tail, stdout and stderr together', async () => {
    const ok = await runCheck(check([node, '-e', 'console.log("fine")']), tempDir(), process.env, Date.now);
    expect(ok).toMatchObject({ name: 'c', exitCode: 0, passed: true, tail: 'fine\n' });
    const bad = await runCheck(
      check([node, '-e', 'console.error("broken"); process.exit(3)']),
      tempDir(),
      process.env,
      Date.now,
    );
    expect(bad).toMatchObject({ exitCode: 3, passed: false, tail: 'broken\n' });
  });

  it('runs in the given directory and finds a bare name along PATH', async () => {
    const dir = tempDir();
    const r = await runCheck(check(['pwd']), dir, process.env, Date.now);
    expect(r).toMatchObject({ exitCode: 0, passed: true });
    expect(r.tail.trim()).toMatch(new RegExp(`${dir.split('/').pop()}$`));
  });

  it('a command that does not exist fails the check with a reason, not the loop', async () => {
    const r = await runCheck(check(['revloop-no-such-check-42']), tempDir(), process.env, Date.now);
    expect(r).toMatchObject({ exitCode: null, passed: false });
    expect(r.tail).toMatch(/revloop-no-such-check-42 ENOENT/);
  });

  it('kills the check and what it started at the timeout', async () => {
    const dir = tempDir();
    const script = `
      const { spawn } = require('node:child_process');
      const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('node:fs').writeFileSync('grandchild.pid', String(g.pid));
      setInterval(() => {}, 1000);`;
    const r = await runCheck(check([node, '-e', script], 1), dir, process.env, Date.now);
    expect(r).toMatchObject({ exitCode: null, passed: false });
    expect(r.tail).toMatch(/killed after 1s/);
    expect(existsSync(join(dir, 'grandchild.pid'))).toBe(true);
    const pid = Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));
    await expect.poll(() => isAlive(pid), { timeout: 15_000 }).toBe(false);
  }, 60_000);
});
