// How the command adapter runs its agent (stdin, env, process group, deadline kill). Which fault
// is which call class is the Reviewer port contract's (test/reviewers/contract/command.contract.test.ts).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReviewer } from '../../src/reviewers/index.js';
import { isAlive } from '../helpers/process.js';
import { ensureBuilt, ROOT } from '../loop/helpers.js';
import {
  AGENTS,
  callRequest,
  standInConfig as cfg,
  cleanupDirs,
  reviewerContext as ctx,
  tempDir,
} from './call-request.js';

const script = join(AGENTS, 'reviewer.mjs');
afterAll(cleanupDirs);
// The kill -9 test runs the compiled agent runner; a build (seconds, minutes on a loaded machine)
// belongs to a hook with room for it, never to a test's own time limit.
beforeAll(ensureBuilt, 600_000);

describe('command adapter', () => {
  it('passes the prompt on stdin, runs in the checkout and sets the REVLOOP_* variables', async () => {
    const dir = tempDir();
    const req = callRequest({ repoDir: dir, role: 'refuter', name: 'refuter', round: 4, callKey: 'key-xyz' });
    const r = await createReviewer(cfg('echo'), { ...ctx(), role: 'refuter', name: 'refuter' }).call(req);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const seen = JSON.parse((r.reply as { reason: string }).reason);
    expect(seen.prompt).toBe(req.prompt);
    expect(seen.cwd).toBe(dir);
    expect(seen.env).toMatchObject({
      REVLOOP_ROLE: 'refuter',
      REVLOOP_REVIEWER: 'refuter',
      REVLOOP_ROUND: '4',
      REVLOOP_BASE: req.base,
      REVLOOP_HEAD: req.head,
      REVLOOP_REPO: dir,
      REVLOOP_CALL_KEY: 'key-xyz',
    });
  });

  it('kills the whole process group at the deadline, grandchild included (TERM ignored, then KILL)', async () => {
    const dir = tempDir();
    const started = Date.now();
    // The deadline must fall after the agent started its grandchild (a node start, which a loaded
    // machine can stretch past a second): a deadline before that kills an agent with no grandchild
    // yet, and there is nothing to check. A slower machine only waits less past it.
    const r = await createReviewer(cfg('hang'), ctx()).call(
      callRequest({ repoDir: dir, deadlineMs: Date.now() + 5000 }),
    );
    const took = Date.now() - started;
    expect(r).toMatchObject({ ok: false, class: 'timeout' });
    // Deadline, then the 2 s grace before SIGKILL, and not much more (the agent would hang
    // forever; the margin is for a loaded machine).
    expect(took).toBeGreaterThanOrEqual(4950);
    expect(took).toBeLessThan(60_000);
    const pid = Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));
    await expect.poll(() => isAlive(pid), { timeout: 15_000 }).toBe(false);
  }, 120_000);

  it('dies with its controller: a kill -9 of the process that started it takes the whole group down', async () => {
    const dir = tempDir();
    const runner = pathToFileURL(join(ROOT, 'dist/reviewers/agent-process.js')).href;
    const controller = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { runAgentProcess } = await import(${JSON.stringify(runner)});
         await runAgentProcess({ argv: ${JSON.stringify([script, 'hang'])}, cwd: ${JSON.stringify(dir)},
           env: process.env, stdin: '', deadlineMs: Date.now() + 60_000 });`,
      ],
      { stdio: 'ignore' },
    );
    const pidIn = (name: string): number | null => {
      try {
        const t = readFileSync(join(dir, name), 'utf8');
        return /^\d+$/.test(t) ? Number(t) : null;
      } catch {
        return null;
      }
    };
    // The grandchild's pid is written last.
    await expect.poll(() => pidIn('grandchild.pid'), { timeout: 15_000 }).not.toBeNull();
    const agent = pidIn('agent.pid') as number;
    const grandchild = pidIn('grandchild.pid') as number;
    expect(isAlive(agent) && isAlive(grandchild)).toBe(true);
    controller.kill('SIGKILL');
    // Both ignore SIGTERM; only the watchdog's group kill ends them.
    await expect.poll(() => isAlive(agent) || isAlive(grandchild), { timeout: 15_000 }).toBe(false);
  }, 120_000);

  it('kills stragglers a finished agent left in its group', async () => {
    const dir = tempDir();
    const r = await createReviewer(cfg('straggler'), ctx()).call(callRequest({ repoDir: dir }));
    expect(r).toMatchObject({ ok: true });
    const pid = Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));
    await expect.poll(() => isAlive(pid), { timeout: 15_000 }).toBe(false);
  });
});
