/**
 * Refutations remembered, bound to what they judged: a remembered refutation
 * answers a later raise only when the change, reviewer, file, claim (up to
 * case and punctuation), both severities, the judged lines' text, the place
 * and the refuter are all the same; any difference sends the raise to the
 * refuter again. Bounded by case count, never by time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linesDigest } from '../../src/core/judged-content.js';
import type { FindingRow } from '../../src/core/ledger.js';
import { judgedRefutation, type MemoryFact } from '../../src/core/refute-memory.js';
import { refutationTargets } from '../../src/core/refute-plan.js';
import type { Severity } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';

const budgets = { rounds: 5, wallSeconds: 60, costUsd: 1 };
const CHANGE = 'git@example.org:acme/shop#42';
const REFUTER = 'refuter-identity-1';
const SCENARIO = 'when the cart is empty, total() returns NaN and the order is charged 0';

interface Raise {
  changeKey: string;
  reviewer: string;
  file: string;
  claim: string;
  severity: Severity;
  reportedSeverity: Severity;
  text: string;
  line: number;
  endLine: number;
  /** Where the judged lines lie at the new revision (git's answer). */
  now: { file: string; start: number; end: number } | null;
  refuter: string | null;
}

const rowOf = (id: string, runId: string, round: number, r: Raise, content: string | null): FindingRow => ({
  id,
  runId,
  round,
  reviewer: r.reviewer,
  revision: `${runId}-head`,
  callKey: `${id}-call`,
  index: 0,
  reported: {
    severity: r.reportedSeverity,
    file: r.file,
    line: r.line,
    endLine: r.endLine,
    claim: r.claim,
    failureScenario: SCENARIO,
  },
  severity: r.severity,
  gate: { kind: 'kept' },
  refutation: null,
  dispute: null,
  settlement: null,
  content,
});

const judgedLines = (r: Raise) =>
  r.text
    .split('\n')
    .slice(r.line - 1, Math.max(r.line, r.endLine))
    .join('\n');

/** The planner's answer for `later`, given the refuter refuted `first` in run 1, round 1. */
function answer(first: Raise, later: Raise, opts: { content?: 'null' } = {}) {
  const firstContent =
    opts.content === 'null' ? null : linesDigest(first.file, first.text, first.line, first.endLine, sha256);
  const judgedRow: FindingRow = {
    ...rowOf('judged', 'run-1', 1, first, firstContent),
    refutation: {
      decision: 'refuted',
      by: 'skeptic (m1)',
      reason: 'the guard on line 3 prevents it',
      callKey: 'rk1',
    },
  };
  const judged = judgedRefutation(
    judgedRow,
    { changeKey: first.changeKey, createdAt: 1, refuter: first.refuter },
    sha256,
  );
  if (!judged) throw new Error('a first-hand refutation is always judged');
  const f = rowOf(
    'raise',
    'run-2',
    1,
    later,
    linesDigest(later.file, later.text, later.line, later.endLine, sha256),
  );
  const fact: MemoryFact = {
    forFinding: f.id,
    judged,
    now: later.now && { file: later.now.file, range: { start: later.now.start, end: later.now.end } },
  };
  return refutationTargets([f], 1, {
    hasRefuter: true,
    spentUsd: 0,
    budgets,
    memory: { facts: [fact], judge: { changeKey: later.changeKey, refuter: later.refuter }, hash: sha256 },
  });
}

const severity = fc.constantFrom<Severity>('MAJOR', 'MODERATE');
const lineText = fc.string({ minLength: 0, maxLength: 12 }).map((s) => s.replace(/\n/g, ' '));
const base: fc.Arbitrary<Raise> = fc
  .record({
    lines: fc.array(lineText, { minLength: 1, maxLength: 12 }),
    start: fc.nat(11),
    span: fc.nat(3),
    severity,
    reportedSeverity: severity,
    claim: fc.constantFrom(
      'total() returns NaN on an empty cart',
      'the lock is never released',
      'SQL built from input',
    ),
    reviewer: fc.constantFrom('correctness', 'security'),
    file: fc.constantFrom('src/a.ts', 'src/b.ts'),
  })
  .map((x) => {
    const line = Math.min(x.start, x.lines.length - 1) + 1;
    const endLine = Math.min(line + x.span, x.lines.length);
    return {
      changeKey: CHANGE,
      reviewer: x.reviewer,
      file: x.file,
      claim: x.claim,
      severity: x.severity,
      reportedSeverity: x.reportedSeverity,
      text: x.lines.join('\n'),
      line,
      endLine,
      now: { file: x.file, start: line, end: endLine },
      refuter: REFUTER,
    };
  });

/** One field of the later raise altered (or, for the first, nothing). */
type Mutation = (r: Raise) => Raise;
const other = (s: Severity): Severity => (s === 'MAJOR' ? 'MODERATE' : 'MAJOR');
const mutations: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>((r) => r),
  // A push edits one line of the file, inside or outside the judged lines.
  fc.record({ at: fc.nat(11), text: lineText }).map<Mutation>(({ at, text }) => (r) => {
    const lines = r.text.split('\n');
    lines[at % lines.length] = text;
    return { ...r, text: lines.join('\n') };
  }),
  // The same claim in other case and punctuation is the same claim (the fingerprint folds them).
  fc.constant<Mutation>((r) => ({ ...r, claim: `${r.claim.toUpperCase()}!` })),
  fc.constant<Mutation>((r) => ({ ...r, claim: `${r.claim} twice` })),
  fc.constant<Mutation>((r) => ({ ...r, severity: other(r.severity) })),
  fc.constant<Mutation>((r) => ({ ...r, reportedSeverity: other(r.reportedSeverity) })),
  fc.constant<Mutation>((r) => ({
    ...r,
    file: `${r.file}x`,
    now: r.now && { ...r.now, file: `${r.file}x` },
  })),
  fc.constant<Mutation>((r) => ({ ...r, reviewer: `${r.reviewer}-2` })),
  fc.constant<Mutation>((r) => ({ ...r, changeKey: `${CHANGE}3` })),
  fc.constant<Mutation>((r) => ({ ...r, changeKey: 'git@example.org:other/shop#42' })),
  fc.constant<Mutation>((r) => ({ ...r, refuter: 'refuter-identity-2' })),
  fc.constant<Mutation>((r) => ({ ...r, refuter: null })),
  // The judged lines moved elsewhere (or their file went): another place, another judgement.
  fc.constant<Mutation>((r) => ({ ...r, now: r.now && { ...r.now, start: r.now.start + 1 } })),
  fc.constant<Mutation>((r) => ({ ...r, now: null })),
  // The finding itself names other lines, which the judged ones do not map to.
  fc.constant<Mutation>((r) => ({ ...r, line: r.line + 1, endLine: r.endLine + 1 })),
);

describe('a remembered refutation covers only what it judged', () => {
  it('is applied when every part matches, and never otherwise', () => {
    fc.assert(
      fc.property(base, fc.array(mutations, { minLength: 1, maxLength: 3 }), (first, ms) => {
        const later = ms.reduce((r, m) => m(r), first);
        // Mutations compose (and may undo each other): what counts is how the last raise differs from the first.
        const differs =
          later.changeKey !== first.changeKey ||
          later.reviewer !== first.reviewer ||
          later.file !== first.file ||
          later.severity !== first.severity ||
          later.reportedSeverity !== first.reportedSeverity ||
          later.refuter !== first.refuter ||
          later.line !== first.line ||
          later.endLine !== first.endLine ||
          later.claim.toLowerCase().replace(/[^a-z()]+/g, '') !==
            first.claim.toLowerCase().replace(/[^a-z()]+/g, '') ||
          JSON.stringify(later.now) !== JSON.stringify(first.now) ||
          judgedLines(later) !== judgedLines(first);
        const plan = answer(first, later);
        const applied = plan.remembered.length === 1;
        expect(applied).toBe(!differs);
        // Answered from memory or sent to the refuter: never both, never neither.
        expect(plan.remembered.length + plan.targets.length).toBe(1);
      }),
      { numRuns: 600, seed: 20261207 },
    );
  });

  it('is never applied when the judged content is unknown (a ledger from before the digest)', () => {
    fc.assert(
      fc.property(base, (first) => {
        const plan = answer(first, first, { content: 'null' });
        expect(plan.remembered).toEqual([]);
        expect(plan.targets.map((f) => f.id)).toEqual(['raise']);
      }),
      { numRuns: 100, seed: 7 },
    );
  });

  it('says where it was made and carries a checkable origin', () => {
    fc.assert(
      fc.property(base, (first) => {
        const [r] = answer(first, first).remembered;
        expect(r?.refutation).toEqual({
          decision: 'refuted',
          by: 'skeptic (m1)',
          reason: 'refuted earlier in run run-1, round 1, by skeptic (m1): the guard on line 3 prevents it',
          callKey: 'rk1',
          origin: { runId: 'run-1', round: 1, findingId: 'judged', callKey: 'rk1' },
        });
      }),
      { numRuns: 50, seed: 11 },
    );
  });
});

describe('which remembered decision speaks', () => {
  const raise: Raise = {
    changeKey: CHANGE,
    reviewer: 'correctness',
    file: 'src/a.ts',
    claim: 'total() returns NaN on an empty cart',
    severity: 'MAJOR',
    reportedSeverity: 'MAJOR',
    text: 'a\nb\nc\nd',
    line: 2,
    endLine: 3,
    now: { file: 'src/a.ts', start: 2, end: 3 },
    refuter: REFUTER,
  };
  const content = linesDigest(raise.file, raise.text, raise.line, raise.endLine, sha256);
  const decided = (id: string, runId: string, createdAt: number, refutation: FindingRow['refutation']) => {
    const j = judgedRefutation(
      { ...rowOf(id, runId, 1, raise, content), refutation },
      { changeKey: CHANGE, createdAt, refuter: REFUTER },
      sha256,
    );
    return j && { forFinding: 'raise', judged: j, now: { file: raise.file, range: { start: 2, end: 3 } } };
  };
  const refuted = { decision: 'refuted' as const, by: 'skeptic', reason: 'guarded', callKey: 'k1' };
  const plan = (facts: (MemoryFact | null)[]) =>
    refutationTargets([rowOf('raise', 'run-9', 1, raise, content)], 1, {
      hasRefuter: true,
      spentUsd: 0,
      budgets,
      memory: {
        facts: facts.filter((x): x is MemoryFact => x !== null),
        judge: { changeKey: CHANGE, refuter: REFUTER },
        hash: sha256,
      },
    });

  it('a later upheld decision overrides an earlier refutation: the raise goes to the refuter', () => {
    const p = plan([
      decided('old', 'run-1', 1, refuted),
      decided('new', 'run-2', 2, { ...refuted, decision: 'upheld', callKey: 'k2' }),
    ]);
    expect(p.remembered).toEqual([]);
    expect(p.targets.map((f) => f.id)).toEqual(['raise']);
  });

  it('the latest refutation is the one repeated', () => {
    const p = plan([
      decided('old', 'run-1', 1, refuted),
      decided('new', 'run-2', 2, { ...refuted, callKey: 'k2' }),
    ]);
    expect(p.remembered[0]?.refutation.origin).toEqual({
      runId: 'run-2',
      round: 1,
      findingId: 'new',
      callKey: 'k2',
    });
  });

  it('a refutation answered from memory is not itself a source (no chain of memories)', () => {
    const second = { ...refuted, origin: { runId: 'run-1', round: 1, findingId: 'old', callKey: 'k1' } };
    expect(decided('copy', 'run-2', 2, second)).toBeNull();
    const forged = decided('old', 'run-1', 1, refuted) as MemoryFact;
    const p = plan([{ ...forged, judged: { ...forged.judged, refutation: second } }]);
    expect(p.remembered).toEqual([]);
  });

  it('a remembered answer costs nothing: neither a spent budget nor the per-reply cap holds it back', () => {
    const spent = refutationTargets([rowOf('raise', 'run-9', 1, raise, content)], 1, {
      hasRefuter: true,
      spentUsd: 5,
      budgets,
      maxPerReply: 0,
      memory: {
        facts: [decided('old', 'run-1', 1, refuted) as MemoryFact],
        judge: { changeKey: CHANGE, refuter: REFUTER },
        hash: sha256,
      },
    });
    expect(spent.remembered.map((x) => x.findingId)).toEqual(['raise']);
    expect(spent.targets).toEqual([]);
  });

  it('no refuter configured: nothing is remembered either', () => {
    const none = refutationTargets([rowOf('raise', 'run-9', 1, raise, content)], 1, {
      hasRefuter: false,
      spentUsd: 0,
      budgets,
      memory: {
        facts: [decided('old', 'run-1', 1, refuted) as MemoryFact],
        judge: { changeKey: CHANGE, refuter: REFUTER },
        hash: sha256,
      },
    });
    expect(none.remembered).toEqual([]);
  });
});
