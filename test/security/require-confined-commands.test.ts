/**
 * `--require-confined` on every command that starts the change's processes:
 * `review` had it; a `worker` or a `resume` on a runner whose bwrap cannot
 * make a sandbox went on unconfined (REVLOOP_CONFINE=require applied only at
 * the first call, after the run was claimed). Each refuses before it claims
 * or takes over anything: exit 14, one line, the run left as it was.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  ensureBuilt,
  inProcess,
  makeReviewRepo,
  pass,
  reposRemovedAfterAll,
  runCli,
  testEnv,
} from '../loop/helpers.js';

const repos = reposRemovedAfterAll();
const scratch = mkdtempSync(join(tmpdir(), 'revloop-require-confined-'));
beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A PATH whose `bwrap` exists and cannot make a sandbox. */
function brokenBwrapPath(): string {
  const bin = mkdtempSync(join(scratch, 'bin-'));
  writeFileSync(
    join(bin, 'bwrap'),
    '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
  );
  chmodSync(join(bin, 'bwrap'), 0o755);
  return `${bin}:${process.env.PATH}`;
}

async function queuedRun() {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ reply: pass }] });
  const q = await runCli(['enqueue', '--base', 'main', '--head', 'topic', '--json'], { cwd: r.dir });
  expect(q.code, q.stderr).toBe(0);
  const p = await inProcess(r.dir);
  try {
    const [run] = await p.store.listRuns();
    if (!run) throw new Error('nothing enqueued');
    return { r, runId: run.id };
  } finally {
    await p.close();
  }
}

async function runOf(dir: string, runId: string) {
  const p = await inProcess(dir);
  try {
    return (await p.store.listRuns()).find((x) => x.id === runId);
  } finally {
    await p.close();
  }
}

describe('--require-confined where bwrap cannot make a sandbox', () => {
  const env = () => testEnv({ PATH: brokenBwrapPath(), REVLOOP_CONFINE: undefined });

  it('worker: exit 14 in one line, nothing claimed, no reviewer called', async () => {
    const { r, runId } = await queuedRun();
    const before = await runOf(r.dir, runId);
    const res = await runCli(['worker', '--exit-when-idle', '--require-confined'], {
      cwd: r.dir,
      env: env(),
    });
    expect(res.code, res.stderr).toBe(14);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/confinement required .* unavailable/);
    expect(r.counts()).toEqual({});
    expect(await runOf(r.dir, runId)).toEqual(before);
  });

  it('resume: exit 14 in one line, the run not taken over, no reviewer called', async () => {
    const { r, runId } = await queuedRun();
    const before = await runOf(r.dir, runId);
    const res = await runCli(['resume', runId, '--require-confined'], { cwd: r.dir, env: env() });
    expect(res.code, res.stderr).toBe(14);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.counts()).toEqual({});
    expect(await runOf(r.dir, runId)).toEqual(before);
  });

  it('without the flag the worker still drives the run (unconfined, said once)', async () => {
    const { r, runId } = await queuedRun();
    const res = await runCli(['worker', '--exit-when-idle'], { cwd: r.dir, env: env() });
    expect(res.code, res.stderr).toBe(0);
    expect((await runOf(r.dir, runId))?.status).toBe('completed');
  });
});
