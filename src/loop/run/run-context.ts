/**
 * Everything the driver knows about the run it holds: the frozen snapshot, the
 * config re-read from the snapshot's source commit, the agents, and what the
 * ledger already recorded (so a resumed run skips every completed stage and
 * reuses every recorded verdict).
 */
import type { DiffSection } from '../../core/chunks.js';
import type { AgentConfig, ReviewerConfig } from '../../core/config.js';
import { leavesOut, NO_IGNORE } from '../../core/ignore.js';
import type { AttemptRow, RunRow } from '../../core/ledger.js';
import { type TerminalEnd, unfinishedEnd } from '../../core/run-state.js';
import type { StageRow, StageRowOf, VerdictRow } from '../../core/stage-results.js';
import type { Snapshot, Stage } from '../../core/types.js';
import { PromptFiles } from '../../io/prompt-files.js';
import type { DiffRead } from '../../ports/git.js';
import type { Reviewer } from '../../ports/reviewer.js';
import type { changeSettlements } from '../admission.js';
import { LedgerCache } from '../calls/ledger-cache.js';
import type { SideWork } from '../calls/side-work.js';
import type { JudgeTree } from '../checkout/judge-tree.js';
import { WorktreeState } from '../checkout/worktree-state.js';
import type { LoadedConfig } from '../config-loader.js';
import type { LoopDeps } from '../deps.js';
import { FreezeGuard } from './freeze-guard.js';
import { GitFacts } from './git-facts.js';
import { Memo } from './memo.js';
import { RunBudget } from './run-budget.js';
import { RunRefMoves } from './run-ref.js';

/** Why a revision's diff has no text to cut prompts from. */
const tooLongText = (head: string, bytes: number | undefined): string =>
  `the diff of ${head.slice(0, 12)} has ${bytes === undefined ? 'more' : `${bytes} bytes of`} text to review (what ignore: leaves out not counted), more than one process can hold; leave generated, vendored or data files out with ignore: in the config, or review the change in parts`;

/** Thrown inside the driver to end the run with a terminal status; caught once, at the top. */
export class RunEnd extends Error {
  constructor(readonly end: TerminalEnd) {
    super(`${end.status}: ${end.reason ?? end.stopReason}${end.detail ? `: ${end.detail}` : ''}`);
  }
}

export interface Agent {
  name: string;
  cfg: AgentConfig | ReviewerConfig;
  reviewer: Reviewer;
}

export class RunContext {
  /** The moves of the run's ref to its landed fixes (run-ref.ts). */
  readonly runRef: RunRefMoves;
  /** What the ledger holds of the run, kept in step by this owner's writes. */
  readonly ledger: LedgerCache;
  /** Immutable git facts about the run's commits, each read once. */
  readonly facts: GitFacts;
  /** The run's checkout, as far as the controller knows it. */
  readonly checkout = new WorktreeState();
  /** Whether a passed freeze check is still current. */
  readonly freeze = new FreezeGuard();
  readonly budget: RunBudget;
  private current: RunRow;
  private settlements: ReturnType<typeof changeSettlements> | undefined;
  /** A prompt's file is content-addressed: once written, its digest names it for good. */
  private readonly savedPrompts = new Memo<void>();
  private readonly promptFiles: PromptFiles;

  /** The read-only copy of the config's commit the judges' own files run from (judge-tree.ts), when they name any. */
  judge: JudgeTree | null = null;

  constructor(
    readonly deps: LoopDeps,
    run: RunRow,
    readonly loaded: LoadedConfig,
    readonly reviewers: Agent[],
    readonly refuter: Agent | null,
    readonly fixer: Agent | null,
    startedAt: number,
    readonly worktree: string,
    /** The driver's scheduler of work beside agent calls (side-work.ts). */
    readonly sideWork: SideWork,
    recorded: { verdicts: VerdictRow[]; attempts: AttemptRow[]; stages: StageRow[] },
  ) {
    this.current = run;
    this.promptFiles = new PromptFiles(deps.stateDir(deps.repoRoot), { writeFile: deps.writeStateFile });
    this.runRef = new RunRefMoves(deps.git, deps.repoRoot, run.id);
    this.ledger = new LedgerCache(recorded);
    this.facts = new GitFacts(
      deps.git,
      deps.repoRoot,
      run.snapshot.mergeBase,
      (err) => new RunEnd(unfinishedEnd('failed', 'missing_context', err.message)),
      leavesOut(run.snapshot.ignore ?? NO_IGNORE),
      run.snapshot.head,
    );
    this.budget = new RunBudget(
      run.snapshot.budgets,
      startedAt,
      deps.clock,
      () => this.ledger.spent(),
      (end) => new RunEnd(end),
    );
  }

  get run(): RunRow {
    return this.current;
  }

  /** The run's head moved to a fix's commit (recorded with the fix stage). */
  movedTo(head: string): void {
    this.current = { ...this.current, head };
  }

  get snapshot(): Snapshot {
    return this.run.snapshot;
  }

  get criteria(): string {
    return this.loaded.criteria;
  }

  /** Invariant 12: the recorded spend, from every verdict of the run (the ledger's own sum). */
  get spent(): number {
    return this.ledger.spent();
  }

  /** The recorded row of `stage` in `round`, typed by stage. */
  stage<S extends Stage>(round: number, stage: S): StageRowOf<S> | undefined {
    return this.ledger.stage(round, stage);
  }

  /** The call's latest attempt the ledger held when this owner took the run. */
  lastAttempt(callKey: string): AttemptRow | undefined {
    return this.ledger.lastAttempt(callKey);
  }

  noteStage(row: StageRow): void {
    this.ledger.noteStage(row);
  }

  /** Settlements of the change's earlier runs, by fingerprint, loaded on first use with `load`. */
  priorSettlements(load: () => ReturnType<typeof changeSettlements>): ReturnType<typeof changeSettlements> {
    this.settlements ??= load();
    return this.settlements;
  }

  /**
   * The diff digest of mergeBase..head. Commits are immutable, so a digest
   * computed once for a pair of commit ids holds; `fresh` recomputes it anyway
   * (the check before a stage's result is recorded).
   */
  diffDigest(head: string, fresh = false): Promise<string> {
    return this.facts.digest(head, fresh);
  }

  /**
   * The diff of mergeBase..head that prompts carry, whole (a diff too
   * large for one call is split into chunks by the review, not refused here).
   * Safe to start early: a failure is kept for whoever awaits it.
   */
  promptDiff(head: string): Promise<string> {
    return this.facts.diff(head).then(({ text, textBytes }) => {
      // Invariant 1: a diff whose text could not be held is never reviewed as an empty one.
      if (text === null)
        throw new RunEnd(unfinishedEnd('failed', 'missing_context', tooLongText(head, textBytes)));
      return text;
    });
  }

  /** The sections the prompts of `head` cut from its prompt diff `diff` (GitFacts.promptSections). */
  promptSections(head: string, diff: string, limit: number): Promise<DiffSection[]> {
    return this.facts.promptSections(head, diff, limit);
  }

  /** Paths the ignore rules leave out that the run's fixes edited by `head`: reviewed anyway (GitFacts.editedByFix). */
  editedByFix(head: string): Promise<string[]> {
    return this.facts.editedByFix(head);
  }

  /** A diff read before the run began (admission, in this process), for its first round. */
  seedDiff(head: string, read: DiffRead): void {
    this.facts.seedDiff(head, read);
  }

  /** Whether commit `a` exists and is an ancestor of (or equal to) `b`. */
  isAncestor(a: string, b: string): Promise<boolean> {
    return this.facts.isAncestor(a, b);
  }

  /** The blob ids the review's diff of `head` names (GitFacts.noteBlobIds). */
  noteBlobIds(head: string, ids: ReadonlyMap<string, string>): void {
    this.facts.noteBlobIds(head, ids);
  }

  /** Sizes of files at a commit id, unread (Git.blobSizes, by the noted blob ids). */
  blobSizes(sha: string, paths: readonly string[]): Promise<Map<string, number | null>> {
    return this.facts.blobSizes(sha, paths);
  }

  /** A file at a commit id (immutable, so read once). */
  readBlob(sha: string, path: string): Promise<Buffer | null> {
    return this.facts.readBlob(sha, path);
  }

  /** A file at a commit id, not kept after this read (GitFacts.readBlobOnce). */
  readBlobOnce(sha: string, path: string): Promise<Buffer | null> {
    return this.facts.readBlobOnce(sha, path);
  }

  wallDeadline(): number {
    return this.budget.wallDeadline();
  }

  /** Invariant 12: the budgets frozen at admission; running out mid-review ends the run with no outcome. */
  checkBudgets(): void {
    this.budget.check();
  }

  /**
   * Prompts are stored content-addressed, for audit; the digest in the ledger is what counts.
   * One write per digest: a review saves its next call's prompt ahead (review-calls.ts).
   */
  savePrompt(digest: string, prompt: string | Uint8Array): Promise<void> {
    return this.savedPrompts.get(digest, () => this.promptFiles.save(digest, prompt));
  }
}
