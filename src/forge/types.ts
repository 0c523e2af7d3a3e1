/**
 * The data of a publication, forge-neutral: what the run says (RunView),
 * what the forge holds (ForgeState), and what to do about it (PublishPlan).
 * The planner (plan.ts) is a pure function from the first two to the third;
 * each forge's executor only carries the plan out.
 */

import type { IncompleteConclusion, ReviewEvent } from '../core/choices.js';
import type { CoverageSummary } from '../core/coverage.js';
import type { NotBlockingBecause } from '../core/run-report.js';
import type { Outcome, Reproduction, RunStatus, Severity, StopReason } from '../core/types.js';
import type { CommentableLines } from './diff-lines.js';

export const FORGES = ['github', 'gitlab'] as const;
export type ForgeName = (typeof FORGES)[number];

export interface ViewFinding {
  id: string;
  fingerprint: string;
  round: number;
  revision: string;
  reviewer: string;
  severity: Severity;
  file: string;
  line: number;
  endLine: number;
  claim: string;
  failureScenario: string | null;
  violatedClause: string | null;
  because: NotBlockingBecause;
  /** Plain words for why it does not block (null for a blocker). */
  why: string | null;
  /** Under repeat sampling: how many of the reviewer's samples found it. */
  reproduction?: Reproduction;
}

/** A fingerprint a person dismissed or the refuter refuted in another run of the change. */
export interface PriorSettlement {
  fingerprint: string;
  runId: string;
  kind: 'refuted' | 'overturned';
  by: string;
  reason: string;
}

/** What the run knows, read from the ledger (src/forge/view.ts). */
export interface RunView {
  runId: string;
  change: string;
  status: RunStatus;
  outcome: Outcome | null;
  stopReason: StopReason | null;
  reason: string | null;
  detail: string | null;
  /** The head the run was admitted on (the PR's head then). */
  admittedHead: string;
  /** The run's final revision: the admitted head, or its last fix commit on refs/revloop/runs/<id>. */
  finalHead: string;
  base: string;
  rounds: { round: number; head: string }[];
  findings: ViewFinding[];
  costUsd: number;
  costBudgetUsd: number;
  reviewers: string[];
  /** Reviewer calls answered / expected, over every round (invariant 15's count, from the ledger). */
  calls: { answered: number; expected: number };
  /**
   * The files of the last reviewed revision: those the ignore rules
   * kept, how many of them every reviewer reviewed, and those left out with
   * their rule. Null for a run recorded before coverage, or never reviewed.
   */
  files: CoverageSummary | null;
  /** One line saying how many verdicts were reused from identical earlier calls and from where; null when none. */
  reused?: string | null | undefined;
  prior: PriorSettlement[];
}

/** The record's `verify`, run against the PR's live head with the keys verify would trust. */
export interface RecordCheck {
  ok: boolean;
  code: string;
  reason: string;
}

/** A comment revloop wrote earlier (its body starts with a finding marker). */
export interface ForgeThread {
  commentId: string;
  /** The thread or discussion that can be resolved; null when the forge gave none. */
  threadId: string | null;
  fingerprint: string;
  runId: string;
  revision: string;
  body: string;
  resolved: boolean;
  /** Resolved by someone other than revloop's identity: a person's dismissal. */
  resolvedByPerson: boolean;
}

export interface ForgeCheck {
  id: string;
  sha: string;
  conclusion: string | null;
  title: string;
  /** null where the forge keeps only a title (a commit status). */
  summary: string | null;
}

export interface ForgeState {
  /** The PR's live head, read from the API just before writing. */
  head: string;
  /** The PR's base commit on the forge. */
  base: string;
  /** Summaries (reviews, notes) revloop wrote, by run. */
  summaries: { id: string; runId: string; revision: string; body: string }[];
  threads: ForgeThread[];
  /** revloop's checks on the live head and on the revisions earlier publications named. */
  checks: ForgeCheck[];
  commentable: CommentableLines;
}

export interface PublishOptions {
  /** GitHub's review event when blockers stand. */
  event: ReviewEvent;
  suggestions: boolean;
  /** A fixer's change longer than this many lines is not offered as a suggestion. */
  suggestionLines: number;
  /** The check's conclusion for a run that did not complete. */
  incomplete: IncompleteConclusion;
}

/** The fixer's version of a blocker's lines, at the live head (src/forge/suggestion.ts). */
export interface Suggestion {
  findingId: string;
  line: number;
  endLine: number;
  text: string;
}

export type Conclusion = 'success' | 'failure' | 'neutral';

export interface NewComment {
  fingerprint: string;
  path: string;
  line: number;
  /** The first line of a multi-line comment (a suggestion replaces line..endLine). */
  startLine: number | null;
  body: string;
}

export type PublishAction =
  | {
      kind: 'create_summary';
      commitId: string;
      event: ReviewEvent;
      body: string;
      comments: NewComment[];
    }
  | { kind: 'update_summary'; summaryId: string; body: string }
  | { kind: 'add_comment'; commitId: string; comment: NewComment }
  | { kind: 'edit_comment'; commentId: string; fingerprint: string; body: string }
  | { kind: 'resolve_thread'; threadId: string; fingerprint: string }
  | {
      kind: 'set_check';
      checkId: string | null;
      sha: string;
      conclusion: Conclusion;
      title: string;
      summary: string;
    };

export interface PublishPlan {
  actions: PublishAction[];
  /** The SHA and conclusion of the check on the live head. */
  check: { sha: string; conclusion: Conclusion; title: string };
  stale: boolean;
  /** Findings that stand but could not go inline (not on the PR's diff), by fingerprint. */
  offDiff: string[];
}
