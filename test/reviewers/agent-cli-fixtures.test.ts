/**
 * Issue 15, points 5 and 6, on what the real CLIs print: every envelope and
 * event stream under test/fixtures/agent-clis/ was captured from Claude Code
 * 2.1.332 and Codex 0.171.0 run against the loopback model server
 * (agent-clis.real.test.ts with REVLOOP_CAPTURE_AGENT_FIXTURES=1), and is
 * replayed here through revloop's own claude-code and codex adapters, so this
 * runs everywhere, with or without the CLIs installed.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallClass } from '../../src/core/types.js';
import { createReviewer } from '../../src/reviewers/index.js';
import { callRequest, cleanupDirs } from './call-request.js';

afterAll(cleanupDirs);

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'agent-clis');
const REPLAY = join(FIXTURES, 'replay.mjs');
const PINS = { 'claude-code': 'claude-loopback-pin', codex: 'gpt-loopback-pin' } as const;

function replay(cli: 'claude-code' | 'codex', name: string, deadlineMs = 60_000) {
  const dir = join(FIXTURES, cli);
  return createReviewer(
    {
      adapter: cli,
      command: [process.execPath, REPLAY, join(dir, `${name}.stdout`), join(dir, `${name}.json`)],
      model: PINS[cli],
    },
    { role: 'reviewer', name: 'cli', repoRoot: '/', env: process.env },
  ).call(callRequest({ name: 'cli', deadlineMs: Date.now() + deadlineMs }));
}

const expected: Record<'claude-code' | 'codex', Record<string, CallClass>> = {
  'claude-code': {
    success: 'ok',
    findings: 'ok',
    '429': 'rate_limited',
    '500': 'unavailable',
    '529-overloaded': 'unavailable',
    rerouted: 'model_drift',
    malformed: 'malformed',
    hang: 'timeout',
  },
  codex: {
    success: 'ok',
    findings: 'ok',
    '429': 'rate_limited',
    '500': 'unavailable',
    '503': 'unavailable',
    rerouted: 'model_drift',
    malformed: 'malformed',
    hang: 'timeout',
  },
};

describe.each(['claude-code', 'codex'] as const)('%s: captured output', (cli) => {
  it('every captured case has an expected class here', () => {
    const cases = readdirSync(join(FIXTURES, cli))
      .filter((f) => f.endsWith('.stdout'))
      .map((f) => f.slice(0, -'.stdout'.length))
      .sort();
    expect(cases).toEqual(Object.keys(expected[cli]).sort());
  });

  it.each(Object.entries(expected[cli]))('%s is %s', async (name, cls) => {
    const r = await replay(cli, name, name === 'hang' ? 3_000 : 60_000);
    if (cls === 'ok') {
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true, modelId: PINS[cli] });
      return;
    }
    expect(r, JSON.stringify(r)).toMatchObject({ ok: false, class: cls });
  });

  it('the served model of a reroute is named, and the detail says what the API answered', async () => {
    const other = cli === 'claude-code' ? 'claude-loopback-other' : 'gpt-loopback-other';
    expect(await replay(cli, 'rerouted')).toMatchObject({ detail: expect.stringContaining(`"${other}"`) });
    expect(await replay(cli, '429')).toMatchObject({ detail: expect.stringContaining('429') });
  });
});
