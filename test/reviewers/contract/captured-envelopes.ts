/**
 * What the real agent CLIs printed, replayed through revloop's claude-code
 * and codex adapters: every envelope and event stream under
 * test/fixtures/agent-clis/ was captured from Claude Code 2.1.332 and Codex
 * 0.171.0 run against the loopback model server (agent-clis.real.test.ts with
 * REVLOOP_CAPTURE_AGENT_FIXTURES=1), so the contract runs everywhere, with or
 * without the CLIs installed.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../../src/core/config.js';
import type { CallRequest, CallResult } from '../../../src/ports/reviewer.js';
import { createReviewer } from '../../../src/reviewers/index.js';
import { callRequest } from '../call-request.js';
import type { AdapterContract, Variant } from './reviewer-contract.js';

export type Cli = 'claude-code' | 'codex';
const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'agent-clis');
const REPLAY = join(FIXTURES, 'replay.mjs');
export const PINS = { 'claude-code': 'claude-loopback-pin', codex: 'gpt-loopback-pin' } as const;

/** The captured cases of one CLI, by file name. */
export function capturedCases(cli: Cli): string[] {
  return readdirSync(join(FIXTURES, cli))
    .filter((f) => f.endsWith('.stdout'))
    .map((f) => f.slice(0, -'.stdout'.length))
    .sort();
}

/** One call of the adapter whose CLI prints the captured case `name` (and hangs if the real one did). */
export function replay(cli: Cli, name: string, over: Partial<CallRequest> = {}): Promise<CallResult> {
  const dir = join(FIXTURES, cli);
  return agent(cli, [process.execPath, REPLAY, join(dir, `${name}.stdout`), join(dir, `${name}.json`)], over);
}

/** One call of the adapter with `command` as its CLI. */
export function agent(cli: Cli, command: string[], over: Partial<CallRequest> = {}): Promise<CallResult> {
  const cfg: AgentConfig = { adapter: cli, command, model: PINS[cli] };
  return createReviewer(cfg, { role: 'reviewer', name: 'cli', repoRoot: '/', env: process.env }).call(
    callRequest({ name: 'cli', deadlineMs: Date.now() + 60_000, ...over }),
  );
}

/** A contract variant that replays captured case `name`. */
export function captured(cli: Cli, name: string, more: Partial<Variant<null>> = {}): Variant<null> {
  const hang = name === 'hang';
  return {
    name: `captured "${name}"`,
    call: () => replay(cli, name, hang ? { deadlineMs: Date.now() + 3_000 } : {}),
    ...more,
  };
}

/** The variants every command-run CLI meets the same way: no checkout, no executable, an abort. */
export function runnerVariants(cli: Cli) {
  return {
    missing_context: [
      {
        name: 'the checkout does not exist',
        call: () => replay(cli, 'success', { repoDir: '/nonexistent/revloop' }),
      },
    ],
    failed: [{ name: 'the CLI is not installed', call: () => agent(cli, [`revloop-no-such-${cli}-42`]) }],
    interrupted: [
      {
        name: 'revloop aborts the CLI mid-call (captured "hang")',
        call: () => {
          const ac = new AbortController();
          setTimeout(() => ac.abort(), 300);
          return replay(cli, 'hang', { signal: ac.signal });
        },
      },
    ],
  } satisfies Record<string, Variant<null>[]>;
}

/** Pins that every case captured from the real CLI is a variant of `faults`, so no capture goes untested. */
export function everyCaptureUsed(cli: Cli, faults: AdapterContract<null>['faults']): void {
  describe(`${cli} captured output`, () => {
    it('every captured case is a variant of the contract', () => {
      const used = Object.values(faults).flatMap((v) => ('skip' in v ? [] : v.map((x) => x.name)));
      for (const name of capturedCases(cli)) expect(used).toContain(`captured "${name}"`);
    });
  });
}
