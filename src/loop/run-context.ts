/**
 * Everything the driver knows about the run it holds: the frozen snapshot, the
 * config re-read from the snapshot's source commit, the agents, and what the
 * ledger already recorded (so a resumed run skips every completed stage and
 * reuses every recorded verdict).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { AttemptRow, RunRow, StageRow, VerdictRow } from '../core/ledger.js';
import { type TerminalEnd, unfinishedEnd } from '../core/run-state.js';
import type { Snapshot, Stage } from '../core/types.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import type { Reviewer } from '../ports/reviewer.js';
import type { changeSettlements } from './admission.js';
import type { LoadedConfig } from './config-loader.js';
import type { LoopDeps } from './deps.js';

/** Diffs larger than this are not sent to a model: the run fails with missing context instead. */
const MAX_PROMPT_DIFF_BYTES = 4 * 1024 * 1024;

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
  /** The commit the controller just made of the worktree: only untracked files can differ from it. */
  worktreeCommittedAt: string | null = null;
  /** Agent attempts made so far in this process: a freeze check is current until the next one. */
  attemptsMade = 0;
  /** Settlements of the change's earlier runs, by fingerprint (loaded on first use). */
  priorSettlements?: ReturnType<typeof changeSettlements>;
  /** `head:attemptsMade` of the last passed freeze check. */
  frozenMark: string | null = null;
  private readonly promptDiffs = new Map<string, Promise<string>>();
  private readonly digests = new Map<string, Promise<string>>();
  private readonly blobs = new Map<string, Promise<Buffer | null>>();
  private readonly ancestry = new Map<string, Promise<boolean>>();
  private readonly attempts = new Map<string, number>();
  private readonly stages = new Map<string, StageRow>();
  private spentUsd: number;

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
    for (const v of recorded.verdicts) this.verdicts.set(v.callKey, v);
    for (const a of recorded.attempts)
      this.attempts.set(a.callKey, Math.max(a.attemptNo, this.attempts.get(a.callKey) ?? 0));
    for (const s of recorded.stages) this.stages.set(`${s.round}:${s.stage}`, s);
    this.spentUsd = recorded.verdicts.reduce((sum, v) => sum + v.costUsd, 0);
  }

  get snapshot(): Snapshot {
    return this.run.snapshot;
  }

  get criteria(): string {
    return this.loaded.criteria;
  }

  get spent(): number {
    return this.spentUsd;
  }

  attemptsOf(callKey: string): number {
    return this.attempts.get(callKey) ?? 0;
  }

  stage(round: number, stage: Stage): StageRow | undefined {
    return this.stages.get(`${round}:${stage}`);
  }

  noteStage(row: StageRow): void {
    this.stages.set(`${row.round}:${row.stage}`, row);
  }

  addCost(usd: number): void {
    this.spentUsd += usd;
  }

  /**
   * The diff digest of mergeBase..head. Commits are immutable, so a digest
   * computed once for a pair of commit ids holds; `fresh` recomputes it anyway
   * (the check before a stage's result is recorded).
   */
  diffDigest(head: string, fresh = false): Promise<string> {
    const key = `${this.snapshot.mergeBase}..${head}`;
    let d = fresh ? undefined : this.digests.get(key);
    if (!d) {
      d = this.deps.git.diffDigest(this.deps.repoRoot, this.snapshot.mergeBase, head);
      this.digests.set(key, d);
      d.catch(() => this.digests.delete(key));
    }
    return d;
  }

  /**
   * The diff of mergeBase..head that prompts carry, read once per revision.
   * Too large or unreadable, the run fails with missing context. Safe to start
   * early: a failure is kept for whoever awaits it.
   */
  promptDiff(head: string): Promise<string> {
    let d = this.promptDiffs.get(head);
    if (!d) {
      d = this.deps.git
        .diffText(this.deps.repoRoot, this.snapshot.mergeBase, head, MAX_PROMPT_DIFF_BYTES)
        .catch((err: Error) => {
          throw new RunEnd(unfinishedEnd('failed', 'missing_context', err.message));
        });
      d.catch(() => undefined);
      this.promptDiffs.set(head, d);
    }
    return d;
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
    if (this.spentUsd >= this.snapshot.budgets.costUsd && this.snapshot.budgets.costUsd > 0) {
      throw new RunEnd(
        unfinishedEnd(
          'aborted',
          'budget_cost',
          `cost budget of $${this.snapshot.budgets.costUsd} spent ($${this.spentUsd.toFixed(4)})`,
        ),
      );
    }
  }

  /** Prompts are stored content-addressed, for audit; the digest in the ledger is what counts. */
  savePrompt(digest: string, prompt: string): void {
    const path = join(this.deps.stateDir(this.deps.repoRoot), 'prompts', `${digest}.txt`);
    if (!existsSync(path)) writeFileAtomic(path, prompt);
  }
}
