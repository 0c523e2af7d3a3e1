/**
 * Repeat sampling against a seeded noisy reviewer. Per sample, the reviewer
 * reports each true defect with probability p and each recurring false alarm
 * with probability q, worded anew each time (so samples match by their lines,
 * not their text), seeded by case and sample. With n 3 and block 2: every
 * MODERATE that at least two samples found blocks, every other is kept and
 * demoted with its count, each group is one finding; and over a fixed number
 * of cases the measured rates match the binomial P(>= 2 of 3) = 3x^2(1-x) + x^3
 * within four standard errors, which lowers the false-blocker rate from q.
 * Bounded by case count, deterministic seeds: no verdict depends on timing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findingsToGate, gateFindings, type ReviewedCall } from '../../src/core/review-gating.js';
import type { ReportedFinding, SampleRule } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';

const RULE: SampleRule = { n: 3, block: 2, on: 'always' };
const POLICY = { requireScenario: true, scopeLock: false };
const SCENARIO = 'two concurrent calls both read 0 and both write 5, so the total ends at 5, not 10';

/** mulberry32: a small seeded generator, one stream per (case, sample). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Slot k sits on its own lines (10k+1 .. 10k+3): slots never overlap, so a group is one slot. */
const at = (slot: number, kind: 'true' | 'false', word: number): ReportedFinding => ({
  severity: 'MODERATE',
  file: 'src/a.ts',
  line: slot * 10 + 1,
  endLine: slot * 10 + 3,
  claim: `${kind} claim about slot ${slot}, worded ${word}`,
  failureScenario: SCENARIO,
});

interface Case {
  calls: ReviewedCall[];
  /** Per slot: which samples reported it. */
  seenBy: Map<number, number>;
  trueSlots: number;
}

/** One review of `slots` true and `slots` false slots by a reviewer sampled three times. */
function noisyReview(seed: number, p: number, q: number, slots: number): Case {
  const seenBy = new Map<number, number>();
  const calls: ReviewedCall[] = [];
  for (let sample = 0; sample < RULE.n; sample++) {
    const next = rng(seed * 31 + sample);
    const findings: ReportedFinding[] = [];
    for (let s = 0; s < 2 * slots; s++) {
      const isTrue = s < slots;
      if (next() < (isTrue ? p : q)) {
        findings.push(at(s, isTrue ? 'true' : 'false', Math.floor(next() * 1e6)));
        seenBy.set(s, (seenBy.get(s) ?? 0) + 1);
      }
    }
    calls.push({
      reviewer: 'noisy',
      callKey: `case${seed}/sample${sample}`,
      reply: { verdict: findings.length > 0 ? 'findings' : 'pass', findings },
      sample,
    });
  }
  return { calls, seenBy, trueSlots: slots };
}

/** The gated findings of a case, by slot. */
function gated(c: Case) {
  const { toGate } = findingsToGate(
    c.calls,
    () => null,
    (k, i) => `${k}#${i}`,
    sha256,
  );
  const out = gateFindings(toGate, {}, '', POLICY, () => RULE);
  return new Map(out.map((g) => [Math.floor(g.reported.line / 10), g]));
}

const atLeastTwoOfThree = (x: number) => 3 * x * x * (1 - x) + x ** 3;

describe('repeat sampling against a seeded noisy reviewer', () => {
  it('every slot two samples found blocks, every slot one found is demoted with its count, each once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.integer({ min: 1, max: 6 }),
        (seed, p, q, slots) => {
          const c = noisyReview(seed, p, q, slots);
          const bySlot = gated(c);
          // One finding per slot any sample found, and none for a slot no sample found.
          expect([...bySlot.keys()].sort((a, b) => a - b)).toEqual(
            [...c.seenBy.keys()].sort((a, b) => a - b),
          );
          for (const [slot, seen] of c.seenBy) {
            const g = bySlot.get(slot)!;
            expect(g.reproduction).toEqual({ seen, of: 3 });
            if (seen >= RULE.block) expect(g.gate).toEqual({ kind: 'kept' });
            else
              expect(g.gate).toEqual({
                kind: 'demoted',
                rule: 'unreproduced',
                from: 'MODERATE',
                seen,
                of: 3,
              });
            expect(g.severity).toBe(seen >= RULE.block ? 'MODERATE' : 'MINOR');
          }
        },
      ),
      { numRuns: 300, seed: 20261207 },
    );
  });

  it('the measured blocking rates match P(>= 2 of 3), and sampling lowers the false-blocker rate', () => {
    const p = 0.7;
    const q = 0.25;
    const slots = 5;
    const cases = 2000;
    let trueSeen = 0;
    let trueBlocked = 0;
    let falseSeen = 0;
    let falseBlocked = 0;
    let falseSingle = 0;
    for (let seed = 1; seed <= cases; seed++) {
      const c = noisyReview(seed, p, q, slots);
      const bySlot = gated(c);
      for (let s = 0; s < 2 * slots; s++) {
        const blocks = bySlot.get(s)?.gate.kind === 'kept';
        const first = c.calls[0]!.reply.findings.some((f) => Math.floor(f.line / 10) === s);
        if (s < slots) {
          if ((c.seenBy.get(s) ?? 0) >= 2) trueSeen++;
          if (blocks) trueBlocked++;
        } else {
          if ((c.seenBy.get(s) ?? 0) >= 2) falseSeen++;
          if (blocks) falseBlocked++;
          // One sample alone: the false alarm blocks whenever that sample raised it.
          if (first) falseSingle++;
        }
      }
    }
    const n = cases * slots;
    // Every true defect two samples found is kept as a blocker (and nothing else blocks).
    expect(trueBlocked).toBe(trueSeen);
    expect(falseBlocked).toBe(falseSeen);
    const within = (measured: number, x: number) => {
      const expected = atLeastTwoOfThree(x);
      const se = Math.sqrt((expected * (1 - expected)) / n);
      expect(Math.abs(measured / n - expected)).toBeLessThan(4 * se);
    };
    within(trueBlocked, p);
    within(falseBlocked, q);
    // The false-blocker rate falls from about q (one sample) to about 3q^2 - 2q^3.
    expect(falseBlocked).toBeLessThan(falseSingle);
    expect(Math.abs(falseSingle / n - q)).toBeLessThan(4 * Math.sqrt((q * (1 - q)) / n));
  });
});
