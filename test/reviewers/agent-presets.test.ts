import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../src/core/config.js';
import type { Role } from '../../src/core/types.js';
import { claudeCodeArgv } from '../../src/reviewers/claude-code.js';
import { codexArgv } from '../../src/reviewers/codex.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { AGENTS, callRequest, cleanupDirs } from './call-request.js';

afterAll(cleanupDirs);

const claude = (mode: string, over: Partial<AgentConfig> = {}) =>
  createReviewer(
    { adapter: 'claude-code', command: [join(AGENTS, 'claude.mjs'), mode], ...over },
    { role: 'reviewer', name: 'cc', repoRoot: '/', env: process.env },
  ).call(callRequest({ name: 'cc' }));

const codex = (mode: string, over: Partial<AgentConfig> = {}, role: Role = 'refuter') =>
  createReviewer(
    { adapter: 'codex', command: [join(AGENTS, 'codex.mjs'), mode], ...over },
    { role, name: 'cx', repoRoot: '/', env: process.env },
  ).call(callRequest({ name: 'cx', role }));

describe('a preset whose CLI is not installed', () => {
  it('fails the call naming the executable and how to install it (a config fault: never retried, never a pass)', async () => {
    const env = { PATH: '/nonexistent' };
    for (const [adapter, exe, pkg] of [
      ['claude-code', 'claude', '@anthropic-ai/claude-code'],
      ['codex', 'codex', '@openai/codex'],
    ] as const) {
      const res = await createReviewer({ adapter }, { role: 'reviewer', name: 'r', repoRoot: '/', env }).call(
        callRequest({ name: 'r' }),
      );
      expect(res).toMatchObject({ ok: false, class: 'failed' });
      if (!res.ok) {
        expect(res.detail).toContain(`command not found: ${exe} (install `);
        expect(res.detail).toContain(`npm install -g ${pkg}`);
      }
    }
  });
});

describe('claude-code preset', () => {
  it('defaults to headless claude streaming its events (the served model is in them), the pin and fixer edit permission', () => {
    expect(claudeCodeArgv({ adapter: 'claude-code' }, 'reviewer')).toEqual([
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--setting-sources',
      'user',
      '--strict-mcp-config',
      '--disable-slash-commands',
    ]);
    expect(claudeCodeArgv({ adapter: 'claude-code', model: 'm1' }, 'fixer')).toEqual([
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--setting-sources',
      'user',
      '--strict-mcp-config',
      '--disable-slash-commands',
      '--model',
      'm1',
      '--permission-mode',
      'acceptEdits',
    ]);
  });

  it('parses the final result as the reply and takes total_cost_usd as the cost', async () => {
    const r = await claude('success');
    expect(r).toMatchObject({
      ok: true,
      reply: { verdict: 'findings' },
      modelId: 'claude-standin-1',
      costUsd: 0.0123,
    });
    if (r.ok)
      expect((r.reply as { findings: { claim: string }[] }).findings[0]?.claim).toMatch(/^saw \d+ chars$/);
    expect(await claude('fenced')).toMatchObject({ ok: true });
  });

  it('never reads an error envelope as a pass', async () => {
    expect(await claude('max-turns')).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('error_max_turns'),
    });
    expect(await claude('budget')).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('cost limit'),
    });
    expect(await claude('is-error')).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('API Error: 500'),
    });
    expect(await claude('no-result')).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('no final result'),
    });
    expect(await claude('no-envelope')).toMatchObject({ ok: false, class: 'malformed' });
    expect(await claude('prose')).toMatchObject({
      ok: false,
      class: 'malformed',
      detail: expect.stringContaining('not JSON'),
    });
  });

  it('checks the pin against the models Claude Code reports', async () => {
    expect(await claude('success', { model: 'claude-pinned' })).toMatchObject({
      ok: true,
      modelId: 'claude-pinned',
    });
    expect(await claude('other-model', { model: 'claude-standin-1' })).toMatchObject({
      ok: false,
      class: 'model_drift',
    });
  });
});

describe('codex preset', () => {
  it('defaults to codex exec --json reading the prompt from stdin, sandboxed by role, the checkout untrusted', () => {
    expect(codexArgv({ adapter: 'codex' }, 'reviewer')).toEqual([
      'codex',
      'exec',
      '--json',
      '--sandbox',
      'read-only',
      '-c',
      'project_doc_max_bytes=0',
      '-',
    ]);
    expect(codexArgv({ adapter: 'codex', model: 'gpt-x' }, 'fixer', ['/pool/c1', '/repo'])).toEqual([
      'codex',
      'exec',
      '--json',
      '--model',
      'gpt-x',
      '--sandbox',
      'workspace-write',
      '-c',
      'projects={"/pool/c1"={trust_level="untrusted"},"/repo"={trust_level="untrusted"}}',
      '-c',
      'project_doc_max_bytes=0',
      '-',
    ]);
  });

  it('takes the last agent message of a completed turn as the reply; tokens × prices is the cost', async () => {
    const r = await codex('ok', { prices: { inputPerMTok: 1, outputPerMTok: 4 } });
    expect(r).toMatchObject({ ok: true, reply: { decision: 'refuted' }, modelId: null, costUsd: 2 + 4 });
    expect(await codex('error-then-ok')).toMatchObject({ ok: true, costUsd: 0 });
  });

  it('a failed turn, a turn that never completed, or no final message is failed', async () => {
    expect(await codex('turn-failed')).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('usage limit reached'),
    });
    expect(await codex('no-completion')).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('without a completed turn'),
    });
    expect(await codex('no-message')).toMatchObject({
      ok: false,
      class: 'failed',
      detail: expect.stringContaining('without a final message'),
    });
  });
});
