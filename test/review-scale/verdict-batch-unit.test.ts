/**
 * VerdictBatch alone (src/loop/verdict-batch.ts), against a store that keeps
 * what it is asked to write: batches of the configured size in the order the
 * calls ended, each written only once its prompts are saved, at most two
 * batches of saves outstanding, and a failed write refusing every later call.
 */
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/core/ledger.js';
import type { VerdictRow } from '../../src/core/stage-results.js';
import { parseVerdictRow } from '../../src/core/stored-rows.js';
import { VerdictBatch } from '../../src/loop/verdict-batch.js';
import type { RecordedVerdict, VerdictToRecord } from '../../src/ports/store.js';

const lease: Lease = { runId: 'run-1', token: 1, owner: { id: 'o', host: 'h', pid: 1 }, expiresAt: 0 };

const item = (i: number): VerdictToRecord => ({
  verdict: {
    callKey: `ck-${i}`,
    runId: 'run-1',
    round: 1,
    stage: 'review',
    role: 'reviewer',
    reviewer: 'r',
    revision: 'h'.repeat(40),
    promptDigest: `pd-${i}`,
    modelId: null,
    reply: { verdict: 'pass', findings: [] },
    costUsd: 0,
  },
  endsAttempt: 1,
});

function deferred(): { p: Promise<void>; done: () => void } {
  let done!: () => void;
  const p = new Promise<void>((r) => {
    done = r;
  });
  return { p, done };
}

function harness(fail = false) {
  const writes: string[][] = [];
  const noted: string[] = [];
  const store = {
    async recordVerdicts(_l: Lease, items: readonly VerdictToRecord[]): Promise<RecordedVerdict[]> {
      if (fail) throw new Error('fenced out');
      writes.push(items.map((x) => x.verdict.callKey));
      return items.map((x) => ({
        inserted: true,
        verdict: parseVerdictRow({ ...x.verdict, recordedAt: 1 }),
      }));
    },
  };
  const ledger = { noteVerdict: (v: VerdictRow) => void noted.push(v.callKey) };
  return { batch: new VerdictBatch({ deps: { store }, ledger }, lease, 3), writes, noted };
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  // Enough turns of the microtask queue for any chain that can settle to settle.
  for (let i = 0; i < 20; i++) await Promise.resolve();
  return done;
};

describe('VerdictBatch', () => {
  it('writes full batches in order, each after its prompts are saved; flush writes the rest', async () => {
    const { batch, writes, noted } = harness();
    const saves = Array.from({ length: 7 }, deferred);
    const adds = saves.map((s, i) => batch.add(item(i), s.p));
    // The first batch is full, but its prompts are not on disk: nothing is written.
    expect(await settled(Promise.all(adds.slice(0, 3)))).toBe(true);
    expect(writes).toEqual([]);
    for (const s of saves) s.done();
    await batch.flush();
    expect(writes).toEqual([['ck-0', 'ck-1', 'ck-2'], ['ck-3', 'ck-4', 'ck-5'], ['ck-6']]);
    expect(noted).toEqual(['ck-0', 'ck-1', 'ck-2', 'ck-3', 'ck-4', 'ck-5', 'ck-6']);
  });

  it('holds the call that fills a second batch until the first is written (two batches of saves at most)', async () => {
    const { batch } = harness();
    const first = Array.from({ length: 3 }, deferred);
    for (const [i, s] of first.entries()) await batch.add(item(i), s.p);
    await batch.add(item(3), Promise.resolve());
    await batch.add(item(4), Promise.resolve());
    const sixth = batch.add(item(5), Promise.resolve());
    expect(await settled(sixth)).toBe(false);
    for (const s of first) s.done();
    await sixth;
    await batch.flush();
  });

  it('a failed write fails the flush and refuses every later verdict', async () => {
    const { batch, noted } = harness(true);
    for (let i = 0; i < 3; i++) await batch.add(item(i), Promise.resolve());
    await expect(batch.flush()).rejects.toThrow('fenced out');
    await expect(batch.add(item(3), Promise.resolve())).rejects.toThrow('fenced out');
    expect(noted).toEqual([]);
  });
});
