/**
 * VerdictBatch alone (src/loop/calls/verdict-batch.ts), against a store that keeps
 * what it is asked to write: a lone verdict at once, those ended during a
 * write together in the next (up to the configured size), in the order the
 * calls ended, each written only once its prompts are saved, the calls held
 * within two batches of the disk, and a failed write refusing every later call.
 */
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/core/ledger.js';
import type { VerdictRow } from '../../src/core/stage-results.js';
import { parseVerdictRow } from '../../src/core/stored-rows.js';
import { VerdictBatch } from '../../src/loop/calls/verdict-batch.js';
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
  it('writes a lone verdict at once: nothing waits for a batch to fill', async () => {
    const { batch, writes, noted } = harness();
    await batch.add(item(0), Promise.resolve());
    expect(await settled(Promise.resolve())).toBe(true);
    expect(writes).toEqual([['ck-0']]);
    expect(noted).toEqual(['ck-0']);
  });

  it('verdicts that end during a write go in the next, in order, each write after its prompts are saved', async () => {
    const { batch, writes, noted } = harness();
    const saves = Array.from({ length: 5 }, deferred);
    const adds = saves.map((s, i) => batch.add(item(i), s.p));
    // The first write waits for its prompt: nothing is in the ledger yet.
    expect(await settled(Promise.resolve())).toBe(true);
    expect(writes).toEqual([]);
    saves[0]?.done();
    expect(await settled(Promise.resolve())).toBe(true);
    expect(writes).toEqual([['ck-0']]);
    for (const s of saves) s.done();
    await Promise.all(adds);
    await batch.flush();
    expect(writes).toEqual([['ck-0'], ['ck-1', 'ck-2', 'ck-3'], ['ck-4']]);
    expect(noted).toEqual(['ck-0', 'ck-1', 'ck-2', 'ck-3', 'ck-4']);
  });

  it('holds a call that finds a full batch waiting behind a write (the calls stay within two batches of the disk)', async () => {
    const { batch } = harness();
    const first = deferred();
    await batch.add(item(0), first.p);
    await batch.add(item(1), Promise.resolve());
    await batch.add(item(2), Promise.resolve());
    const fourth = batch.add(item(3), Promise.resolve());
    expect(await settled(fourth)).toBe(false);
    first.done();
    await fourth;
    await batch.flush();
  });

  it('a failed write fails the flush and refuses every later verdict', async () => {
    const { batch, noted } = harness(true);
    for (let i = 0; i < 3; i++) await batch.add(item(i), Promise.resolve()).catch(() => undefined);
    await expect(batch.flush()).rejects.toThrow('fenced out');
    await expect(batch.add(item(3), Promise.resolve())).rejects.toThrow('fenced out');
    expect(noted).toEqual([]);
  });
});
