import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewerConfig } from '../../src/core/config.js';
import { createCommandReviewer, readPlainReply } from '../../src/reviewers/command.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { isAlive } from '../helpers/process.js';
import { ensureBuilt, ROOT } from '../loop/helpers.js';
import { AGENTS, callRequest, cleanupDirs, tempDir } from './call-request.js';

const script = join(AGENTS, 'reviewer.mjs');
const cfg = (mode: string, over: Partial<ReviewerConfig> = {}): ReviewerConfig => ({
  name: 'correctness',
  adapter: 'command',
  command: [script, mode],
  ...over,
});
const ctx = (env: NodeJS.ProcessEnv = process.env) => ({
  role: 'reviewer' as const,
  name: 'correctness',
  repoRoot: '/',
  env,
});
const call = (mode: string, over: Partial<ReviewerConfig> = {}, env?: NodeJS.ProcessEnv) =>
  createReviewer(cfg(mode, over), ctx(env)).call(callRequest());

afterAll(cleanupDirs);
// The kill -9 test runs the compiled agent runner; a build (seconds, minutes on a loaded machine)
// belongs to a hook with room for it, never to a test's own time limit.
beforeAll(ensureBuilt, 600_000);

describe('command adapter', () => {
  it('turns exit 0 with a valid reply into a reply, with the reported model and cost', async () => {
    const r = await call('pass', {}, { ...process.env, STANDIN_MODEL: 'm-1' });
    expect(r).toEqual({
      ok: true,
      reply: expect.objectContaining({ verdict: 'pass' }),
      modelId: 'm-1',
      costUsd: 0.25,
    });
  });

  it('reads a fenced ```json block and a findings reply', async () => {
    expect(await call('fenced')).toMatchObject({ ok: true, reply: { verdict: 'pass' } });
    expect(await call('findings')).toMatchObject({
      ok: true,
      reply: { verdict: 'findings' },
      modelId: null,
      costUsd: 0,
    });
  });

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

  it('classifies bad output as malformed, naming the problem', async () => {
    expect(await call('not-json')).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('not JSON'),
    });
    expect(await call('empty')).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('empty output'),
    });
    expect(await call('schema-break')).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('$.findings.0.severity'),
    });
    expect(await call('path-escape')).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('escapes the repository'),
    });
  });

  it('maps exit 75 to unavailable and other exits to failed with the stderr tail', async () => {
    expect(await call('exit75')).toMatchObject({
      ok: false,
      class: 'unavailable',
      detail: expect.stringContaining('upstream busy'),
    });
    const r = await call('exit3');
    expect(r).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringMatching(/exited with code 3: boom/),
    });
  });

  it('redacts API key values an agent prints to stderr', async () => {
    const secret = 'sk-test-SECRET-0123456789';
    const r = await call('exit3', {}, { ...process.env, OPENAI_API_KEY: secret });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.detail).not.toContain(secret);
      expect(r.detail).toContain('[redacted]');
    }
  });

  it('reports a missing executable clearly', async () => {
    const r = await createReviewer(
      { name: 'x', adapter: 'command', command: ['revloop-no-such-tool-42'] },
      { ...ctx(), name: 'x' },
    ).call(callRequest({ name: 'x' }));
    expect(r).toEqual({
      ok: false,
      class: 'failed',
      detail: 'reviewer "x": command not found: revloop-no-such-tool-42',
    });
  });

  it('caps stdout: an oversized reply is malformed', async () => {
    const rev = createCommandReviewer(cfg('huge'), ctx(), {
      argv: [script, 'huge'],
      read: readPlainReply,
      maxStdoutBytes: 1024 * 1024,
    });
    expect(await rev.call(callRequest())).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('too large'),
    });
  });

  it('kills the whole process group at the deadline, grandchild included (TERM ignored, then KILL)', async () => {
    const dir = tempDir();
    const started = Date.now();
    const r = await createReviewer(cfg('hang'), ctx()).call(
      callRequest({ repoDir: dir, deadlineMs: Date.now() + 700 }),
    );
    const took = Date.now() - started;
    expect(r).toMatchObject({ ok: false, class: 'timeout' });
    // Deadline, then the 2 s grace before SIGKILL, and not much more (the agent would hang
    // forever; the margin is for a loaded machine).
    expect(took).toBeGreaterThanOrEqual(650);
    expect(took).toBeLessThan(30_000);
    const pid = Number(readFileSync(join(dir, 'grandchild.pid'), 'utf8'));
    await expect.poll(() => isAlive(pid), { timeout: 15_000 }).toBe(false);
  }, 60_000);

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
    await expect.poll(() => isAlive(pid), { timeout: 3000 }).toBe(false);
  });

  it('honours the caller abort signal as unknown (interrupted), and a passed deadline as timeout', async () => {
    const ac = new AbortController();
    const rev = createCommandReviewer(cfg('hang'), ctx(), {
      argv: [script, 'hang'],
      read: readPlainReply,
      killGraceMs: 100,
    });
    const p = rev.call(callRequest({ signal: ac.signal }));
    setTimeout(() => ac.abort(), 200);
    expect(await p).toMatchObject({
      ok: false,
      class: 'unknown',
      detail: expect.stringContaining('interrupted'),
    });
    expect(await rev.call(callRequest({ deadlineMs: Date.now() - 1 }))).toMatchObject({
      ok: false,
      class: 'timeout',
    });
  });

  it('treats a pinned model and a reply naming another as model drift', async () => {
    const env = { ...process.env, STANDIN_MODEL: 'served-2' };
    expect(await call('pass', { model: 'pinned-1' }, env)).toMatchObject({ ok: false, class: 'model_drift' });
    expect(await call('pass', { model: 'served-2' }, env)).toMatchObject({ ok: true, modelId: 'served-2' });
  });

  it('a missing checkout is missing context', async () => {
    const r = await createReviewer(cfg('pass'), ctx()).call(callRequest({ repoDir: '/nonexistent/revloop' }));
    expect(r).toMatchObject({ ok: false, class: 'missing_context' });
  });
});
