/**
 * The Reviewer port's contract, written once and run against every adapter
 * (hono's `runTest({ newRouter })`): each fault an adapter can meet, from
 * DESIGN.md's failure-class table, and the call class the port must answer
 * with. An adapter file gives, for every fault, the ways it arranges that
 * fault for real (a loopback server, a subprocess, a captured CLI envelope)
 * or a skip with the reason the fault cannot reach revloop through that
 * adapter. The mapped type forces an answer for every fault; the reason is in
 * the test's name and in the matrix printed after the adapter's run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallClass } from '../../../src/core/types.js';
import type { CallResult } from '../../../src/ports/reviewer.js';

/** Every fault of the port: the DESIGN.md row it comes from, and the class it must be. */
export const FAULTS = {
  reply: { row: 'a complete reply that passes its schema', expect: 'ok' },
  rate_limited: {
    row: 'rate limited: 429, Retry-After honoured; an agent CLI reporting 429',
    expect: 'rate_limited',
  },
  unavailable: { row: 'unavailable: 5xx, an outage; an agent CLI reporting 5xx', expect: 'unavailable' },
  connection: { row: 'unavailable: connection refused or reset', expect: 'unavailable' },
  timeout: { row: 'timeout: the deadline passed', expect: 'timeout' },
  truncated: { row: 'truncated: finish reason length / max_tokens, stream cut', expect: 'truncated' },
  malformed: { row: 'malformed output: schema validation', expect: 'malformed' },
  refused: { row: 'refusal: adapter signal', expect: 'refused' },
  missing_context: { row: 'missing context: adapter signal', expect: 'missing_context' },
  model_drift: { row: 'model drift: reported model id != pinned id', expect: 'model_drift' },
  failed: { row: 'any other failure (exit code, auth error): the run fails, never a pass', expect: 'failed' },
  interrupted: { row: 'controller crash mid-stage: a call revloop aborted is unknown', expect: 'unknown' },
} as const satisfies Record<string, { row: string; expect: CallClass }>;
export type Fault = keyof typeof FAULTS;

/**
 * The rows of DESIGN.md's failure-class table that no adapter detects: the
 * controller does, around the call. Named so the table is covered row by row.
 */
export const CONTROLLER_ROWS = [
  'head moved (new push)',
  'stale diff',
  'criteria changed mid-run',
  'duplicate delivery (call key already recorded)',
  'worker died (lease expired)',
  'spend over the cost budget',
  'a file too large for one call',
  "a settled finding's content changed",
] as const;

/** One way an adapter meets a fault, for real. */
export interface Variant<E> {
  /** What is arranged, e.g. "HTTP 503" or "captured 429 envelope". */
  name: string;
  call: (env: E) => Promise<CallResult>;
  /** What else the adapter promises here: a detail naming the cause, a Retry-After. */
  check?: (r: CallResult) => void;
  timeoutMs?: number;
}

/** A fault that cannot reach revloop through this adapter, and why. */
export interface Skip {
  skip: string;
}

export interface AdapterContract<E> {
  adapter: string;
  /** Starts what the calls need (a loopback server); given to every call. */
  setup: () => Promise<E>;
  teardown?: (env: E) => Promise<void>;
  faults: { readonly [F in Fault]: readonly Variant<E>[] | Skip };
}

const isSkip = <E>(v: readonly Variant<E>[] | Skip): v is Skip => 'skip' in v;

/** What every result of every adapter must be, whatever the fault. */
function expectClass(r: CallResult, expected: CallClass): void {
  if (expected === 'ok') {
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
    if (!r.ok) return;
    expect(r.costUsd).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(r.costUsd)).toBe(true);
    expect(r.modelId === null || typeof r.modelId === 'string').toBe(true);
    return;
  }
  // Invariant 1: a result without a verdict is never a reply.
  expect(r, JSON.stringify(r)).toMatchObject({ ok: false, class: expected });
  if (r.ok) return;
  expect(r.detail.trim().length).toBeGreaterThan(0);
}

/** The matrix line of one fault: the variants that ran, or the skip and its reason. */
function matrixLine<E>(adapter: string, fault: Fault, entry: readonly Variant<E>[] | Skip): string {
  const head = `${adapter.padEnd(11)} ${fault.padEnd(15)} -> ${FAULTS[fault].expect.padEnd(15)}`;
  return isSkip(entry) ? `${head} SKIP: ${entry.skip}` : `${head} ${entry.map((v) => v.name).join('; ')}`;
}

export function runReviewerContract<E>(contract: AdapterContract<E>): void {
  describe(`Reviewer port contract: ${contract.adapter}`, () => {
    let env: E;
    beforeAll(async () => {
      env = await contract.setup();
    }, 60_000);
    afterAll(async () => {
      if (contract.teardown) await contract.teardown(env);
      const lines = (Object.keys(FAULTS) as Fault[]).map((f) =>
        matrixLine(contract.adapter, f, contract.faults[f]),
      );
      // The matrix, skips with their reasons, in the test output of every run.
      console.log(`Reviewer port contract, ${contract.adapter}:\n${lines.join('\n')}`);
    });

    it('the faults cover every call class, and every skip gives its reason', () => {
      const classes = new Set(Object.values(FAULTS).map((f) => f.expect));
      expect([...classes].sort()).toEqual(Object.values(CallClass).sort());
      for (const f of Object.keys(FAULTS) as Fault[]) {
        const entry = contract.faults[f];
        if (isSkip(entry)) expect(entry.skip.length, `${f}: a skip needs its reason`).toBeGreaterThan(20);
        else expect(entry.length, `${f}: no variant and no skip`).toBeGreaterThan(0);
      }
      // A reply must be reachable: an adapter that can only fail is no adapter.
      expect(isSkip(contract.faults.reply)).toBe(false);
    });

    for (const fault of Object.keys(FAULTS) as Fault[]) {
      const entry = contract.faults[fault];
      const expected = FAULTS[fault].expect;
      if (isSkip(entry)) {
        it.skip(`${fault} (${FAULTS[fault].row}) -> ${expected}: skipped, ${entry.skip}`, () => {});
        continue;
      }
      for (const v of entry)
        it(
          `${fault} (${v.name}) -> ${expected}`,
          async () => {
            const r = await v.call(env);
            expectClass(r, expected);
            v.check?.(r);
          },
          v.timeoutMs ?? 60_000,
        );
    }
  });
}

/** A check that the failure's detail contains `text`. */
export const detailHas =
  (text: string | RegExp) =>
  (r: CallResult): void => {
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.detail).toMatch(text);
  };

/** A check that a rate limit carries the Retry-After it was given, in ms. */
export const retryAfter =
  (check: (ms: number | undefined) => void) =>
  (r: CallResult): void => {
    expect(r.ok).toBe(false);
    if (!r.ok) check(r.retryAfterMs);
  };
