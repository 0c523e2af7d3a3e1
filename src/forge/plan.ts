/**
 * The publication planner: a pure function from what the run says, what the
 * record's verification says and what the forge holds, to the list of API
 * actions (invariant 17). Executors carry the list out in order and decide
 * nothing; the same input always gives the same plan, and a forge state that
 * already shows the plan gives no create action at all.
 */
import { spanOf } from './diff-lines.js';
import { type Settled, settledBody, standingBody, summaryBody } from './render.js';
import type {
  Conclusion,
  ForgeName,
  ForgeState,
  ForgeThread,
  NewComment,
  PublishAction,
  PublishOptions,
  PublishPlan,
  RecordCheck,
  RunView,
  Suggestion,
  ViewFinding,
} from './types.js';

export interface PlanInput {
  view: RunView;
  state: ForgeState;
  /** verify of the run's record against the live head; null when the record does not cover it or is absent. */
  record: RecordCheck | null;
  suggestions: Suggestion[];
  options: PublishOptions;
  /** Whose suggestion syntax the comments use. */
  forge: ForgeName;
}

const short = (sha: string): string => sha.slice(0, 7);

export function planPublication(input: PlanInput): PublishPlan {
  const { view, state, record, options } = input;
  const T = state.head;
  const revisions = new Set([view.admittedHead, view.finalHead, ...view.rounds.map((r) => r.head)]);
  const stale = !revisions.has(T);
  const completed = view.status === 'completed';
  const live = completed && !stale;

  const roundAtT = [...view.rounds].reverse().find((r) => r.round > 0 && r.head === T);
  const atT = roundAtT ? view.findings.filter((f) => f.round === roundAtT.round) : [];
  const prior = new Map(view.prior.map((p) => [p.fingerprint, p]));
  const threads = new Map<string, ForgeThread[]>();
  for (const t of state.threads) threads.set(t.fingerprint, [...(threads.get(t.fingerprint) ?? []), t]);
  const dismissedFp = new Set(state.threads.filter((t) => t.resolvedByPerson).map((t) => t.fingerprint));

  const blockers = live ? atT.filter((f) => f.because === null) : [];
  const postable = blockers.filter((f) => !prior.has(f.fingerprint) && !dismissedFp.has(f.fingerprint));
  const suggestions = new Map(options.suggestions ? input.suggestions.map((s) => [s.findingId, s]) : []);

  const inline: NewComment[] = [];
  const inlineFindings: ViewFinding[] = [];
  const offDiff: ViewFinding[] = [];
  const edits: PublishAction[] = [];
  for (const f of postable) {
    const s = suggestions.get(f.id) ?? null;
    const [line, endLine] = s ? [s.line, s.endLine] : [f.line, f.endLine];
    const body = standingBody(f, view.runId, T, s, input.forge);
    const existing = threads.get(f.fingerprint) ?? [];
    if (existing.length) {
      inlineFindings.push(f);
      // A later run edits the comment of a finding that still stands instead of posting it again.
      for (const t of existing)
        if (t.body !== body)
          edits.push({ kind: 'edit_comment', commentId: t.commentId, fingerprint: f.fingerprint, body });
      continue;
    }
    // A range the diff does not hold cannot take a comment; a one-line anchor on its last line may.
    const span = spanOf(state.commentable, f.file, line, endLine);
    const single = span ? null : spanOf(state.commentable, f.file, endLine);
    if (!span && !single) {
      offDiff.push(f);
      continue;
    }
    inlineFindings.push(f);
    inline.push({
      fingerprint: f.fingerprint,
      path: f.file,
      line: endLine,
      startLine: span && line !== endLine ? line : null,
      body: span ? body : standingBody(f, view.runId, T, null, input.forge),
    });
  }

  // Threads of findings that no longer stand: marked and resolved, only on a completed, current run.
  const standingFp = new Set(postable.map((f) => f.fingerprint));
  const resolves: PublishAction[] = [];
  if (live)
    for (const t of state.threads) {
      if (standingFp.has(t.fingerprint) || t.resolved) continue;
      const settled = settledState(view, atT, prior, t);
      const body = settledBody({ fingerprint: t.fingerprint }, view.runId, T, settled, t.body);
      if (body !== t.body)
        edits.push({ kind: 'edit_comment', commentId: t.commentId, fingerprint: t.fingerprint, body });
      if (t.threadId)
        resolves.push({ kind: 'resolve_thread', threadId: t.threadId, fingerprint: t.fingerprint });
    }

  const check = conclude(view, T, stale, record, blockers.length, options);
  const actions: PublishAction[] = [];
  if (!stale) {
    const body = summaryBody({
      view,
      target: T,
      stale,
      record,
      check,
      inline: inlineFindings,
      offDiff,
      dismissed: blockers.filter((f) => dismissedFp.has(f.fingerprint)),
      prior: atT.flatMap((f) => {
        const p = prior.get(f.fingerprint);
        return p ? [{ finding: f, settled: p }] : [];
      }),
    });
    const mine = state.summaries.find((s) => s.runId === view.runId);
    if (!mine) {
      const event = options.event === 'REQUEST_CHANGES' && postable.length ? 'REQUEST_CHANGES' : 'COMMENT';
      actions.push({ kind: 'create_summary', commitId: T, event, body, comments: inline });
    } else {
      if (mine.body !== body) actions.push({ kind: 'update_summary', summaryId: mine.id, body });
      // Each run creates at most one review: later comments of the same run are added to the pull request one by one.
      for (const comment of inline) actions.push({ kind: 'add_comment', commitId: T, comment });
    }
  }
  actions.push(...edits, ...resolves);

  const summary = checkSummary(view, T, record, check.title);
  const onHead = state.checks.find((c) => c.sha === T);
  if (
    !onHead ||
    onHead.conclusion !== check.conclusion ||
    onHead.title !== check.title ||
    (onHead.summary !== null && onHead.summary !== summary)
  )
    actions.push({ kind: 'set_check', checkId: onHead?.id ?? null, sha: T, ...check, summary });
  if (live)
    for (const c of state.checks) {
      if (c.sha === T) continue;
      const title = `superseded: the pull request's head is now ${short(T)}`;
      if (c.conclusion === 'neutral' && c.title === title) continue;
      actions.push({
        kind: 'set_check',
        checkId: c.id,
        sha: c.sha,
        conclusion: 'neutral',
        title,
        summary: c.summary ?? '',
      });
    }
  return { actions, check: { sha: T, ...check }, stale, offDiff: offDiff.map((f) => f.fingerprint) };
}

/** Why a thread's finding no longer stands at the live head. */
function settledState(
  view: RunView,
  atT: ViewFinding[],
  prior: Map<string, { kind: 'refuted' | 'overturned'; by: string; reason: string }>,
  t: ForgeThread,
): Settled {
  const p = prior.get(t.fingerprint);
  if (p) return { kind: p.kind, by: p.by, reason: p.reason };
  const here = atT.find((f) => f.fingerprint === t.fingerprint);
  if (here) return { kind: 'not_blocking', why: here.why ?? 'not blocking' };
  // Fixed in the first revision of this run that no longer carries it.
  const rounds = view.rounds.filter((r) => r.round > 0);
  const lastWith = rounds
    .map((r) => view.findings.some((f) => f.round === r.round && f.fingerprint === t.fingerprint))
    .lastIndexOf(true);
  const commit = lastWith >= 0 ? (rounds[lastWith + 1]?.head ?? view.finalHead) : view.admittedHead;
  return { kind: 'fixed', commit };
}

/** Invariant 17: `success` only for a verified clear record of exactly this head. */
function conclude(...args: Parameters<typeof concludeFull>): { conclusion: Conclusion; title: string } {
  const c = concludeFull(...args);
  // A commit status holds 140 characters; one limit for every forge keeps the title comparable.
  return { conclusion: c.conclusion, title: c.title.length > 140 ? `${c.title.slice(0, 139)}…` : c.title };
}

function concludeFull(
  view: RunView,
  T: string,
  stale: boolean,
  record: RecordCheck | null,
  blockers: number,
  options: PublishOptions,
): { conclusion: Conclusion; title: string } {
  if (stale)
    return {
      conclusion: 'neutral',
      title: `stale: the review covers ${short(view.finalHead)}, the pull request's head is ${short(T)}`,
    };
  if (view.status !== 'completed')
    return {
      conclusion: options.incomplete,
      title: `did not complete: ${view.status}${view.reason ? ` (${view.reason})` : ''}`,
    };
  if (T !== view.finalHead) {
    const fixed = view.outcome === 'clear' ? 'fixes proposed' : `${blockers} blocker(s); fixes proposed`;
    return {
      conclusion: 'failure',
      title: `${fixed}: ${blockers} blocker(s) at ${short(T)}, fixed in ${short(view.finalHead)} on refs/revloop/runs/${view.runId}`,
    };
  }
  if (view.outcome === 'clear') {
    if (record?.ok && blockers === 0)
      return { conclusion: 'success', title: `clear: the signed record covers ${short(T)}` };
    return {
      conclusion: 'failure',
      title: `clear, but the record is refused: ${record ? `${record.code}: ${record.reason}` : 'no record'}`,
    };
  }
  return {
    conclusion: 'failure',
    title: `${blockers} blocker(s) stand${view.stopReason ? ` (${view.stopReason})` : ''}`,
  };
}

function checkSummary(view: RunView, T: string, record: RecordCheck | null, title: string): string {
  return [
    `run \`${view.runId}\`: ${view.status}${view.outcome ? `, ${view.outcome}` : ''}${view.stopReason ? ` (${view.stopReason})` : ''}`,
    `reviewed ${short(view.finalHead)}; this check is on ${short(T)}`,
    `record: ${record ? (record.ok ? 'verified' : `refused (${record.code})`) : 'does not cover this head'}`,
    '',
    title,
  ].join('\n');
}
