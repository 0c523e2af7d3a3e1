/**
 * Everything the driver knows about the run it holds: the frozen snapshot, the
 * config re-read from the snapshot's source commit, the agents, and what the
 * ledger already recorded (so a resumed run skips every completed stage and
 * reuses every recorded verdict).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { costSpent, spendOf } from '../core/budget.js';
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { AttemptRow, RunRow } from '../core/ledger.js';
import { type TerminalEnd, unfinishedEnd } from '../core/run-state.js';
import { isStageRow, type StageRow, type StageRowOf, type VerdictRow } from '../core/stage-results.js';
import type { Snapshot, Stage } from '../core/types.js';
import { writeFileAtomicAsync } from '../io/atomic-file.js';
import type { Reviewer } from '../ports/reviewer.js';
import type { changeSettlements } from './admission.js';
import type { LoadedConfig } from './config-loader.js';
import type { LoopDeps } from './deps.js';
import { RunRefMoves } from './run-ref.js';

/** No cap: the review chunks what one call cannot carry (issue 17). */
const WHOLE_DIFF = Number.POSITIVE_INFINITY;

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
  readonly verdicts = new Map<string, VerdictRow>();
  /** The revision the worktree is known to hold with nothing else in it, or null when an agent may have touched it. */
  worktreeCleanAt: string | null = null;
  /** The commit the controller just made of the worktree (HEAD, index, tracked files): only ignored files can differ from it. */
  worktreeCommittedAt: string | null = null;
  /** Agent attempts made so far in this process: a freeze check is current until the next one. */
  attemptsMade = 0;
  /** Settlements of the change's earlier runs, by fingerprint (loaded on first use). */
  priorSettlements?: ReturnType<typeof changeSettlements>;
  /** `head:attemptsMade` of the last passed freeze check. */
  frozenMark: string | null = null;
  /** The moves of the run's ref to its landed fixes (run-ref.ts). */
  readonly runRef: RunRefMoves;
  /** By head commit (the base is always the snapshot's merge base). */
  private readonly diffReads = new Map<string, Promise<{ digest: string; text: string | null }>>();
  private readonly digests = new Map<string, Promise<string>>();
  private readonly blobs = new Map<string, Promise<Buffer | null>>();
  private readonly ancestry = new Map<string, Promise<boolean>>();
  /** Each call's latest recorded attempt, by call key. */
  private readonly attempts = new Map<string, AttemptRow>();
  private readonly stages = new Map<string, StageRow>();
  private callStartWaiters: (() => void)[] = [];
  private readonly savedPrompts = new Map<string, Promise<void>>();

  constructor(
    readonly deps: LoopDeps,
    public run: RunRow,
    readonly loaded: LoadedConfig,
    readonly reviewers: Agent[],
    readonly refuter: Agent | null,
    readonly fixer: Agent | null,
    readonly startedAt: number,
    readonly worktree: string,
    recorded: { verdicts: VerdictRow[]; attempts: AttemptRow[]; stages: StageRow[] },
  ) {
    this.runRef = new RunRefMoves(deps.git, deps.repoRoot, run.id);
    for (const v of recorded.verdicts) this.verdicts.set(v.callKey, v);
    for (const a of recorded.attempts)
      if (a.attemptNo > (this.attempts.get(a.callKey)?.attemptNo ?? 0)) this.attempts.set(a.callKey, a);
    for (const s of recorded.stages) this.stages.set(`${s.round}:${s.stage}`, s);
  }

  get snapshot(): Snapshot {
    return this.run.snapshot;
  }

  get criteria(): string {
    return this.loaded.criteria;
  }

  /** Invariant 12: the recorded spend, from every verdict of the run (the ledger's own sum). */
  get spent(): number {
    return spendOf([...this.verdicts.values()].map((v) => v.costUsd));
  }

  attemptsOf(callKey: string): number {
    return this.attempts.get(callKey)?.attemptNo ?? 0;
  }

  /** The call's latest attempt the ledger held when this owner took the run. */
  lastAttempt(callKey: string): AttemptRow | undefined {
    return this.attempts.get(callKey);
  }

  /** The recorded row of `stage` in `round`, typed by stage. */
  stage<S extends Stage>(round: number, stage: S): StageRowOf<S> | undefined {
    const row = this.stages.get(`${round}:${stage}`);
    return row && isStageRow(row, stage) ? row : undefined;
  }

  noteStage(row: StageRow): void {
    this.stages.set(`${row.round}:${row.stage}`, row);
  }

  /** Runs `fn` once the next agent call is under way (see background.ts). */
  whenCallStarts(fn: () => void): void {
    this.callStartWaiters.push(fn);
  }

  /** Called by callAgent right after an agent call began. */
  noteCallStarted(): void {
    const waiting = this.callStartWaiters;
    this.callStartWaiters = [];
    for (const fn of waiting) fn();
  }

  /**
   * The diff digest of mergeBase..head. Commits are immutable, so a digest
   * computed once for a pair of commit ids holds; `fresh` recomputes it anyway
   * (the check before a stage's result is recorded).
   */
  diffDigest(head: string, fresh = false): Promise<string> {
    if (!fresh) return this.digests.get(head) ?? this.readDiff(head).then((r) => r.digest);
    const d = this.deps.git.diffDigest(this.deps.repoRoot, this.snapshot.mergeBase, head);
    this.digests.set(head, d);
    d.catch(() => this.digests.delete(head));
    return d;
  }

  /**
   * The diff of mergeBase..head that prompts carry, whole (issue 17: a diff too
   * large for one call is split into chunks by the review, not refused here).
   * Safe to start early: a failure is kept for whoever awaits it.
   */
  promptDiff(head: string): Promise<string> {
    return this.readDiff(head).then(({ text }) => text ?? '');
  }

  /** A diff read before the run began (admission, in this process), for its first round. */
  seedDiff(head: string, read: { digest: string; text: string | null }): void {
    if (!this.diffReads.has(head)) this.diffReads.set(head, Promise.resolve(read));
    if (!this.digests.has(head)) this.digests.set(head, Promise.resolve(read.digest));
  }

  /** One read of a revision's diff gives its prompt text and its digest (memoised). */
  private readDiff(head: string): Promise<{ digest: string; text: string | null }> {
    let r = this.diffReads.get(head);
    if (!r) {
      r = this.deps.git
        .diffRead(this.deps.repoRoot, this.snapshot.mergeBase, head, WHOLE_DIFF)
        .catch((err: Error) => {
          throw new RunEnd(unfinishedEnd('failed', 'missing_context', err.message));
        });
      r.catch(() => undefined);
      this.diffReads.set(head, r);
      if (!this.digests.has(head)) {
        const d = r.then((x) => x.digest);
        d.catch(() => this.digests.delete(head));
        this.digests.set(head, d);
      }
    }
    return r;
  }

  /** Whether commit `a` exists and is an ancestor of (or equal to) `b`; memoised, commits being immutable. */
  isAncestor(a: string, b: string): Promise<boolean> {
    const key = `${a}<${b}`;
    let r = this.ancestry.get(key);
    if (!r) {
      const { git, repoRoot } = this.deps;
      r = git
        .commitExists(repoRoot, a)
        .then((ok) => (ok ? git.mergeBase(repoRoot, a, b).then((mb) => mb === a) : false))
        .catch(() => false);
      this.ancestry.set(key, r);
    }
    return r;
  }

  /** A file at a commit id (immutable, so read once). */
  readBlob(sha: string, path: string): Promise<Buffer | null> {
    const key = `${sha}:${path}`;
    let b = this.blobs.get(key);
    if (!b) {
      b = this.deps.git.readFile(this.deps.repoRoot, sha, path);
      this.blobs.set(key, b);
      b.catch(() => this.blobs.delete(key));
    }
    return b;
  }

  wallDeadline(): number {
    return this.startedAt + this.snapshot.budgets.wallSeconds * 1000;
  }

  /** Invariant 12: the budgets frozen at admission; running out mid-review ends the run with no outcome. */
  checkBudgets(): void {
    const now = this.deps.clock.now();
    if (now >= this.wallDeadline()) {
      throw new RunEnd(
        unfinishedEnd(
          'timed_out',
          'budget_wall',
          `wall budget of ${this.snapshot.budgets.wallSeconds}s spent`,
        ),
      );
    }
    const spent = this.spent;
    if (costSpent(spent, this.snapshot.budgets)) {
      throw new RunEnd(
        unfinishedEnd(
          'aborted',
          'budget_cost',
          `cost budget of $${this.snapshot.budgets.costUsd} spent ($${spent.toFixed(4)})`,
        ),
      );
    }
  }

  /**
   * Prompts are stored content-addressed, for audit; the digest in the ledger is what counts.
   * One write per digest: a review saves its next call's prompt ahead (review-calls.ts).
   */
  savePrompt(digest: string, prompt: string): Promise<void> {
    let saved = this.savedPrompts.get(digest);
    if (!saved) {
      const path = join(this.deps.stateDir(this.deps.repoRoot), 'prompts', `${digest}.txt`);
      saved = existsSync(path)
        ? Promise.resolve()
        : (this.deps.writeStateFile ?? writeFileAtomicAsync)(path, prompt);
      this.savedPrompts.set(digest, saved);
      saved.catch(() => this.savedPrompts.delete(digest));
    }
    return saved;
  }
}
