import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../src/core/config.js';
import type { Role } from '../../src/core/types.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { callRequest, cleanupDirs, tempDir } from './call-request.js';

afterAll(cleanupDirs);

const finding = {
  severity: 'MAJOR',
  file: 'src/a.ts',
  line: 3,
  claim: 'lost update',
  failureScenario: 'two writers',
};

/** Writes a script into a fresh repo root and returns a reviewer over it (script path relative to the root). */
function scripted(script: unknown, opts: { role?: Role; name?: string; model?: string } = {}) {
  const root = tempDir();
  mkdirSync(join(root, '.revloop'));
  writeFileSync(join(root, '.revloop', 'script.json'), JSON.stringify(script));
  const cfg: AgentConfig = {
    adapter: 'scripted',
    script: '.revloop/script.json',
    ...(opts.model ? { model: opts.model } : {}),
  };
  const name = opts.name ?? 'correctness';
  const rev = createReviewer(cfg, { role: opts.role ?? 'reviewer', name, repoRoot: root, env: {} });
  return {
    root,
    rev,
    req: (over = {}) => callRequest({ name, role: opts.role ?? 'reviewer', repoDir: root, ...over }),
  };
}

describe('scripted adapter', () => {
  it('answers by reviewer name and round, falling back to "*"', async () => {
    const { rev, req } = scripted({
      correctness: {
        '1': { reply: { verdict: 'findings', findings: [finding] } },
        '*': { reply: { verdict: 'pass', findings: [], model: 'scripted-1', usage: { costUsd: 0.5 } } },
      },
    });
    expect(await rev.call(req({ round: 1 }))).toMatchObject({ ok: true, reply: { verdict: 'findings' } });
    expect(await rev.call(req({ round: 2 }))).toEqual({
      ok: true,
      reply: { verdict: 'pass', findings: [], model: 'scripted-1', usage: { costUsd: 0.5 } },
      modelId: 'scripted-1',
      costUsd: 0.5,
    });
  });

  it('uses the first entry whose "when" occurs in the prompt; "times" limits an entry', async () => {
    const { rev, req } = scripted({
      correctness: {
        '*': [
          { when: 'SECOND PASS', reply: { verdict: 'pass', findings: [] } },
          { error: 'rate_limited', retryAfterMs: 1500, times: 1 },
          { reply: { verdict: 'findings', findings: [finding] } },
        ],
      },
    });
    expect(await rev.call(req())).toEqual({
      ok: false,
      class: 'rate_limited',
      detail: 'reviewer "correctness": scripted rate_limited',
      retryAfterMs: 1500,
    });
    expect(await rev.call(req())).toMatchObject({ ok: true, reply: { verdict: 'findings' } });
    expect(await rev.call(req({ prompt: 'this is the SECOND PASS' }))).toMatchObject({
      ok: true,
      reply: { verdict: 'pass' },
    });
  });

  it('"sample" answers one sample of a sampled reviewer; an unsampled call is sample 0', async () => {
    const { rev, req } = scripted({
      correctness: {
        '*': [
          { sample: 0, reply: { verdict: 'findings', findings: [finding] } },
          { reply: { verdict: 'pass', findings: [] } },
        ],
      },
    });
    expect(await rev.call(req())).toMatchObject({ ok: true, reply: { verdict: 'findings' } });
    expect(await rev.call(req({ sample: 0 }))).toMatchObject({ ok: true, reply: { verdict: 'findings' } });
    expect(await rev.call(req({ sample: 2 }))).toMatchObject({ ok: true, reply: { verdict: 'pass' } });
  });

  it('runs scripted replies through the same checks: schema, path escape, drift, text parsing', async () => {
    const { rev, req } = scripted(
      {
        correctness: {
          '1': { reply: { verdict: 'findings', findings: [{ ...finding, file: '/etc/passwd' }] } },
          '2': { reply: 'not json at all' },
          '3': { reply: { verdict: 'pass', findings: [], model: 'other-model' } },
          '4': { reply: '```json\n{"verdict":"pass","findings":[]}\n```' },
        },
      },
      { model: 'pinned-model' },
    );
    expect(await rev.call(req({ round: 1 }))).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('escapes'),
    });
    expect(await rev.call(req({ round: 2 }))).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('not JSON'),
    });
    expect(await rev.call(req({ round: 3 }))).toMatchObject({ ok: false, class: 'model_drift' });
    expect(await rev.call(req({ round: 4 }))).toMatchObject({ ok: true, modelId: null });
  });

  it('a scripted fixer writes files in the worktree', async () => {
    const { root, rev, req } = scripted(
      { fixer: { '*': { write: { 'src/a.ts': 'export const fixed = true;\n' }, reply: { disputed: [] } } } },
      { role: 'fixer', name: 'fixer' },
    );
    expect(await rev.call(req())).toMatchObject({ ok: true, reply: { disputed: [] } });
    expect(readFileSync(join(root, 'src', 'a.ts'), 'utf8')).toBe('export const fixed = true;\n');
  });

  it('rejects writes that escape the worktree, lexically or through a symlink, and writes nothing', async () => {
    const outside = tempDir();
    const { root, rev, req } = scripted(
      {
        fixer: {
          '1': { write: { 'ok.txt': 'x', '../escape.txt': 'x' }, reply: {} },
          '2': { write: { 'link/escape.txt': 'x' }, reply: {} },
        },
      },
      { role: 'fixer', name: 'fixer' },
    );
    symlinkSync(outside, join(root, 'link'));
    expect(await rev.call(req({ round: 1 }))).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('../escape.txt'),
    });
    expect(existsSync(join(root, 'ok.txt'))).toBe(false);
    expect(await rev.call(req({ round: 2 }))).toMatchObject({ ok: false, class: 'malformed' });
    expect(existsSync(join(outside, 'escape.txt'))).toBe(false);
  });

  it('delayMs sleeps, and a deadline inside the sleep is a timeout', async () => {
    const { rev, req } = scripted({
      correctness: { '*': { delayMs: 150, reply: { verdict: 'pass', findings: [] } } },
    });
    const t0 = Date.now();
    expect(await rev.call(req())).toMatchObject({ ok: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(await rev.call(req({ deadlineMs: Date.now() + 30 }))).toMatchObject({
      ok: false,
      class: 'timeout',
    });
  });

  it('an invalid script is failed with the JSON path of the problem', async () => {
    const { rev, req } = scripted({ correctness: { '*': { error: 'exploded' } } });
    expect(await rev.call(req())).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('$.correctness.*.0.error'),
    });
  });
});

describe('usesCheckout', () => {
  it('is true only for an agent whose script writes files, or whose script cannot be read', () => {
    const script = {
      correctness: { '*': { reply: { verdict: 'pass', findings: [] } } },
      fixer: { '1': { write: { 'a.txt': 'x' }, reply: { disputed: [] } } },
    };
    expect(scripted(script).rev.usesCheckout).toBe(false);
    expect(scripted(script, { role: 'fixer', name: 'fixer' }).rev.usesCheckout).toBe(true);
    const missing = createReviewer(
      { adapter: 'scripted', script: 'nope.json' },
      { role: 'reviewer', name: 'correctness', repoRoot: tempDir(), env: {} },
    );
    expect(missing.usesCheckout).toBe(true);
  });

  it('is true for a command agent and false for a model API', () => {
    const ctx = { role: 'reviewer' as const, name: 'r', repoRoot: '/', env: {} };
    expect(createReviewer({ adapter: 'command', command: ['true'] }, ctx).usesCheckout).toBe(true);
    expect(createReviewer({ adapter: 'openai', model: 'm' }, ctx).usesCheckout).toBe(false);
    expect(createReviewer({ adapter: 'anthropic', model: 'm' }, ctx).usesCheckout).toBe(false);
  });
});

describe('createReviewer', () => {
  it('refuses a command adapter without a command, with a named error', async () => {
    const { ReviewerConfigError } = await import('../../src/reviewers/index.js');
    expect(() =>
      createReviewer({ adapter: 'command' }, { role: 'fixer', name: 'fixer', repoRoot: '/', env: {} }),
    ).toThrow(ReviewerConfigError);
  });
});
