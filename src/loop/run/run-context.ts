/**
 * Everything the driver knows about the run it holds: the frozen snapshot, the
 * config re-read from the snapshot's source commit, the agents, and what the
 * ledger already recorded (so a resumed run skips every completed stage and
 * reuses every recorded verdict).
 */
import type { LoadedConfig } from '../../config/loader.js';
import type { AgentConfig, ReviewerConfig } from '../../core/config.js';
import { leavesOut, NO_IGNORE } from '../../core/ignore.js';
import type { AttemptRow, RunRow } from '../../core/ledger.js';
import type { JudgedRefutation } from '../../core/refute-memory.js';
import { type TerminalEnd, unfinishedEnd } from '../../core/run-state.js';
import type { StageRow, VerdictRow } from '../../core/stage-results.js';
import type { Snapshot } from '../../core/types.js';
import { PromptFiles } from '../../io/prompt-files.js';
import type { Reviewer } from '../../ports/reviewer.js';
import type { changeSettlements } from '../admission.js';
import { LedgerCache, type SideWork } from '../calls/index.js';
import { type JudgeTree, WorktreeState } from '../checkout/index.js';
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

/** What a RunContext is built from (the driver's buildContext). */
export interface RunContextParts {
  deps: LoopDeps;
  run: RunRow;
  loaded: LoadedConfig;
  reviewers: Agent[];
  refuter: Agent | null;
  fixer: Agent | null;
  /** When round 1 began (the wall budget counts from there), or now for a run not begun. */
  startedAt: number;
  worktree: string;
  sideWork: SideWork;
  judge: JudgeTree | null;
  recorded: { verdicts: VerdictRow[]; attempts: AttemptRow[]; stages: StageRow[] };
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
  private refutations: Promise<JudgedRefutation[]> | undefined;
  /** A prompt's file is content-addressed: once written, its digest names it for good. */
  private readonly savedPrompts = new Memo<void>();
  private readonly promptFiles: PromptFiles;

  /** The read-only copy of the config's commit the judges' own files run from (judge-tree.ts), when they name any. */
  readonly judge: JudgeTree | null;

  readonly deps: LoopDeps;
  readonly loaded: LoadedConfig;
  readonly reviewers: Agent[];
  readonly refuter: Agent | null;
  readonly fixer: Agent | null;
  /** The run's checkout directory for this owner. */
  readonly worktree: string;
  /** The driver's scheduler of work beside agent calls (calls/side-work.ts). */
  readonly sideWork: SideWork;

  constructor(parts: RunContextParts) {
    const { deps, run } = parts;
    this.deps = deps;
    this.loaded = parts.loaded;
    this.reviewers = parts.reviewers;
    this.refuter = parts.refuter;
    this.fixer = parts.fixer;
    this.worktree = parts.worktree;
    this.sideWork = parts.sideWork;
    this.judge = parts.judge;
    this.current = run;
    this.promptFiles = new PromptFiles(deps.stateDir(deps.repoRoot), { writeFile: deps.writeStateFile });
    this.runRef = new RunRefMoves(deps.git, deps.repoRoot, run.id);
    this.ledger = new LedgerCache(parts.recorded);
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
      parts.startedAt,
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

  /** Settlements of the change's earlier runs, by fingerprint, loaded on first use with `load`. */
  priorSettlements(load: () => ReturnType<typeof changeSettlements>): ReturnType<typeof changeSettlements> {
    this.settlements ??= load();
    return this.settlements;
  }

  /** The refuter's first-hand decisions in the change's earlier runs, loaded on first use with `load`. */
  priorRefutations(load: () => Promise<JudgedRefutation[]>): Promise<JudgedRefutation[]> {
    this.refutations ??= load();
    return this.refutations;
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

  /**
   * Prompts are stored content-addressed, for audit; the digest in the ledger is what counts.
   * One write per digest: a review saves its next call's prompt ahead (review-calls.ts).
   */
  savePrompt(digest: string, prompt: string | Uint8Array): Promise<void> {
    return this.savedPrompts.get(digest, () => this.promptFiles.save(digest, prompt));
  }
}
