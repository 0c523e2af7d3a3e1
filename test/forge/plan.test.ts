/** The publication planner is a pure function: tables of run, record and forge state in, actions out (invariant 17). */
import { describe, expect, it } from 'vitest';
import { findingMarker, runMarker } from '../../src/forge/markers.js';
import { planPublication } from '../../src/forge/plan.js';
import { DEFAULT_PUBLISH_OPTIONS } from '../../src/forge/publish.js';
import type {
  ForgeState,
  ForgeThread,
  RecordCheck,
  RunView,
  Suggestion,
  ViewFinding,
} from '../../src/forge/types.js';

const H = 'a'.repeat(40);
const FIX = 'f'.repeat(40);
const OTHER = '9'.repeat(40);

const finding = (over: Partial<ViewFinding> = {}): ViewFinding => ({
  id: 'f1',
  fingerprint: '1'.repeat(24),
  round: 1,
  revision: H,
  reviewer: 'correctness',
  severity: 'MAJOR',
  file: 'src/a.ts',
  line: 10,
  endLine: 10,
  claim: 'lost update',
  failureScenario: 'two writers race and one write is lost',
  violatedClause: null,
  because: null,
  why: null,
  ...over,
});

const view = (over: Partial<RunView> = {}): RunView => ({
  runId: 'run1',
  change: 'pr-7',
  status: 'completed',
  outcome: 'findings',
  stopReason: 'budget',
  reason: null,
  detail: null,
  admittedHead: H,
  finalHead: H,
  base: 'b'.repeat(40),
  rounds: [{ round: 1, head: H }],
  findings: [finding()],
  costUsd: 0.1,
  costBudgetUsd: 5,
  reviewers: ['correctness'],
  calls: { answered: 1, expected: 1 },
  files: null,
  prior: [],
  ...over,
});

const state = (over: Partial<ForgeState> = {}): ForgeState => ({
  head: H,
  base: 'b'.repeat(40),
  summaries: [],
  threads: [],
  checks: [],
  commentable: new Map([['src/a.ts', [{ first: 1, last: 20 }]]]),
  ...over,
});

const thread = (over: Partial<ForgeThread>): ForgeThread => ({
  commentId: '5',
  threadId: 'T5',
  fingerprint: '2'.repeat(24),
  runId: 'run0',
  revision: H,
  body: 'x',
  resolved: false,
  resolvedByPerson: false,
  ...over,
});

const ok: RecordCheck = { ok: true, code: 'ok', reason: 'record run1 covers aaaaaaa' };
const plan = (
  v: RunView,
  s: ForgeState,
  record: RecordCheck | null = null,
  options = {},
  more: { suggestions?: Suggestion[]; forge?: 'github' | 'gitlab' } = {},
) =>
  planPublication({
    view: v,
    state: s,
    record,
    suggestions: more.suggestions ?? [],
    options: { ...DEFAULT_PUBLISH_OPTIONS, ...options },
    forge: more.forge ?? 'github',
  });
const clear = { outcome: 'clear' as const, stopReason: 'clear' as const, findings: [] };

describe('the check states the record, and only the record (invariant 17)', () => {
  const cases: [string, RunView, ForgeState, RecordCheck | null, string, RegExp][] = [
    ['clear, verified, on its head', view(clear), state(), ok, 'success', /^clear: /],
    [
      'clear, record refused',
      view(clear),
      state(),
      { ok: false, code: 'bad_signature', reason: 'x' },
      'failure',
      /refused: bad_signature/,
    ],
    ['clear, no record', view(clear), state(), null, 'failure', /no record/],
    ['findings', view(), state(), ok, 'failure', /^1 blocker\(s\) stand/],
    [
      'not completed',
      view({ status: 'failed', outcome: null, reason: 'malformed', findings: [] }),
      state(),
      null,
      'neutral',
      /^did not complete: failed \(malformed\)/,
    ],
    ['the head moved past the run', view(clear), state({ head: OTHER }), ok, 'neutral', /^stale: /],
    [
      'clear on a fix commit, the PR head still holds the blocker',
      view({
        ...clear,
        finalHead: FIX,
        rounds: [
          { round: 1, head: H },
          { round: 2, head: FIX },
        ],
        findings: [finding()],
      }),
      state(),
      ok,
      'failure',
      /^fixes proposed/,
    ],
  ];
  it.each(cases)('%s', (_name, v, s, record, conclusion, title) => {
    const p = plan(v, s, record);
    expect(p.check.conclusion).toBe(conclusion);
    expect(p.check.title).toMatch(title);
    expect(p.check.title.length).toBeLessThanOrEqual(140);
  });

  it('a run that did not complete may be configured to fail the check instead', () => {
    expect(
      plan(view({ status: 'timed_out', outcome: null, findings: [] }), state(), null, {
        incomplete: 'failure',
      }).check.conclusion,
    ).toBe('failure');
  });
});

describe('what the plan writes', () => {
  const kinds = (p: ReturnType<typeof plan>) => p.actions.map((a) => a.kind);

  it('first publication: one review with the inline comment, one check', () => {
    const p = plan(view(), state());
    expect(kinds(p)).toEqual(['create_summary', 'set_check']);
    const review = p.actions[0];
    expect(review?.kind === 'create_summary' && review.comments.map((c) => [c.path, c.line])).toEqual([
      ['src/a.ts', 10],
    ]);
  });

  it('a line the diff does not hold goes into the body, not inline', () => {
    const p = plan(view({ findings: [finding({ line: 40, endLine: 40 })] }), state());
    expect(p.offDiff).toEqual(['1'.repeat(24)]);
    const review = p.actions[0];
    expect(review?.kind === 'create_summary' && review.comments).toEqual([]);
    expect(review?.kind === 'create_summary' && review.body).toContain('Blockers not on the diff (1)');
  });

  it('a stale run posts neither a review nor a comment, and resolves nothing', () => {
    const open = thread({
      commentId: '5',
      threadId: 'T5',
      fingerprint: '2'.repeat(24),
      revision: H,
      body: 'x',
      resolved: false,
      resolvedByPerson: false,
    });
    expect(kinds(plan(view(clear), state({ head: OTHER, threads: [open] }), ok))).toEqual(['set_check']);
  });

  it('a run that did not complete resolves nothing (a missing result is never a fix)', () => {
    const open = thread({
      commentId: '5',
      threadId: 'T5',
      fingerprint: '2'.repeat(24),
      revision: H,
      body: 'x',
      resolved: false,
      resolvedByPerson: false,
    });
    const p = plan(view({ status: 'failed', outcome: null, findings: [] }), state({ threads: [open] }));
    expect(kinds(p)).toEqual(['create_summary', 'set_check']);
  });

  it('a later run edits the standing comment and resolves the fixed one', () => {
    const standing = {
      commentId: '5',
      threadId: 'T5',
      fingerprint: '1'.repeat(24),
      runId: 'run0',
      revision: OTHER,
      body: `${findingMarker({ fingerprint: '1'.repeat(24), runId: 'run0', revision: OTHER })}\nold`,
      resolved: false,
      resolvedByPerson: false,
    };
    const fixed = { ...standing, commentId: '6', threadId: 'T6', fingerprint: '2'.repeat(24) };
    const p = plan(view(), state({ threads: [standing, fixed] }));
    expect(kinds(p)).toEqual([
      'create_summary',
      'edit_comment',
      'edit_comment',
      'resolve_thread',
      'set_check',
    ]);
    const review = p.actions[0];
    expect(review?.kind === 'create_summary' && review.comments).toEqual([]);
    expect(p.actions.find((a) => a.kind === 'resolve_thread')).toMatchObject({ threadId: 'T6' });
  });

  it('a fingerprint a person dismissed, or refuted earlier on the change, is never posted', () => {
    const dismissed = thread({
      commentId: '5',
      threadId: 'T5',
      fingerprint: '1'.repeat(24),
      revision: H,
      body: 'theirs',
      resolved: true,
      resolvedByPerson: true,
    });
    expect(kinds(plan(view(), state({ threads: [dismissed] })))).toEqual(['create_summary', 'set_check']);
    const refuted = view({
      prior: [
        {
          fingerprint: '1'.repeat(24),
          runId: 'run0',
          kind: 'refuted',
          by: 'refuter',
          reason: 'not reachable',
        },
      ],
    });
    const p = plan(refuted, state());
    const review = p.actions[0];
    expect(review?.kind === 'create_summary' && review.comments).toEqual([]);
    expect(review?.kind === 'create_summary' && review.body).toContain('Settled earlier on this change (1)');
  });

  it('REQUEST_CHANGES only when configured and a blocker is posted', () => {
    const p = plan(view(), state(), null, { event: 'REQUEST_CHANGES' });
    expect(p.actions[0]).toMatchObject({ kind: 'create_summary', event: 'REQUEST_CHANGES' });
    expect(plan(view(clear), state(), ok, { event: 'REQUEST_CHANGES' }).actions[0]).toMatchObject({
      event: 'COMMENT',
    });
  });

  it('a forge that already shows the plan gets no write at all', () => {
    const first = plan(view(), state());
    const review = first.actions[0];
    const check = first.actions[1];
    if (review?.kind !== 'create_summary' || check?.kind !== 'set_check') throw new Error('unexpected plan');
    const shown = state({
      summaries: [{ id: '1', runId: 'run1', revision: H, body: review.body }],
      threads: review.comments.map((c, i) => ({
        commentId: String(i),
        threadId: `T${i}`,
        fingerprint: c.fingerprint,
        runId: 'run1',
        revision: H,
        body: c.body,
        resolved: false,
        resolvedByPerson: false,
      })),
      checks: [{ id: '9', sha: H, conclusion: check.conclusion, title: check.title, summary: check.summary }],
    });
    expect(plan(view(), shown).actions).toEqual([]);
  });

  it('the review body says which files the review covered and lists those the ignore rules left out', () => {
    const ignored = Array.from({ length: 52 }, (_, i) => ({
      path: `dist/f${i}.js`,
      rule: 'ignore: "dist/**"',
    }));
    const p = plan(view({ files: { kept: 4, reviewedByAll: 4, ignored } }), state());
    const review = p.actions[0];
    const body = review?.kind === 'create_summary' ? review.body : '';
    expect(body).toContain(
      '| files | 4 of 4 file(s) reviewed by every reviewer; 52 left out by `ignore:` (listed below) |',
    );
    expect(body).toContain("<summary>Left out by the config's ignore rules (52)</summary>");
    expect(body).toContain('- `dist/f0.js`: `ignore: "dist/**"`');
    expect(body).toContain('- `dist/f49.js`');
    expect(body).not.toContain('dist/f50.js');
    expect(body).toContain('- … and 2 more (the record lists every one)');
    // Nothing ignored: the files row alone, no list.
    const plain = plan(view({ files: { kept: 3, reviewedByAll: 3, ignored: [] } }), state()).actions[0];
    const plainBody = plain?.kind === 'create_summary' ? plain.body : '';
    expect(plainBody).toContain('| files | 3 of 3 file(s) reviewed by every reviewer |');
    expect(plainBody).not.toContain('ignore rules');
  });

  it('the review body carries its run marker first', () => {
    const review = plan(view(), state()).actions[0];
    expect(
      review?.kind === 'create_summary' && review.body.startsWith(runMarker({ runId: 'run1', revision: H })),
    ).toBe(true);
  });
});

describe("a fixer's suggestion in each forge's syntax", () => {
  const three = finding({ line: 10, endLine: 12 });
  const s: Suggestion = { findingId: 'f1', line: 10, endLine: 12, text: 'a\nb\nc' };
  it.each([
    ['github', '```suggestion\n', 10, 12],
    // GitLab anchors on the last line and counts the lines above it that the suggestion replaces.
    ['gitlab', '```suggestion:-2+0\n', 10, 12],
  ] as const)('%s', (forge, fence, startLine, line) => {
    const p = plan(view({ findings: [three] }), state(), null, {}, { suggestions: [s], forge });
    const create = p.actions.find((a) => a.kind === 'create_summary');
    if (create?.kind !== 'create_summary') throw new Error('no review planned');
    expect(create.comments[0]).toMatchObject({ startLine, line });
    expect(create.comments[0]?.body).toContain(`${fence}a\nb\nc\n\`\`\``);
  });
});
