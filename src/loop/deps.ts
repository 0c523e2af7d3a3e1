/**
 * What the driver needs from the outside world, picked by the composition
 * root (the CLI or a test). Nothing in src/loop reaches for a global.
 */
import type { Hash } from '../core/canonical-json.js';
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { LeaseOwner } from '../core/ledger.js';
import type { CheckResult } from '../core/progress.js';
import type { Role } from '../core/types.js';
import type { Confinement } from '../io/confine.js';
import type { ConfineRequest } from '../io/process-group.js';
import type { Clock, Random } from '../ports/clock.js';
import type { Git } from '../ports/git.js';
import type { Reviewer } from '../ports/reviewer.js';
import type { Store } from '../ports/store.js';

export type ReviewerFactory = (
  cfg: AgentConfig | ReviewerConfig,
  ctx: {
    role: Role;
    name: string;
    repoRoot: string;
    env: NodeJS.ProcessEnv;
    confinement?: (() => Confinement | null) | undefined;
  },
) => Reviewer;

/** What the driver reports as it goes: live progress on a terminal, the dashboard's event feed. */
export type LoopEvent =
  | { kind: 'stage'; runId: string; round: number; stage: string; head: string }
  /** The calls the stage under way will make (a chunked review's: one per reviewer and part). */
  | { kind: 'calls'; runId: string; round: number; stage: string; total: number }
  | { kind: 'call'; runId: string; round: number; role: Role; name: string; attempt: number }
  | {
      kind: 'call_done';
      runId: string;
      round: number;
      role: Role;
      name: string;
      /** The call's class, or `recorded`: its verdict was already in the ledger (a resumed run). */
      class: string;
      costUsd: number;
    }
  | { kind: 'retry'; runId: string; name: string; class: string; delayMs: number }
  | { kind: 'end'; runId: string; status: string; outcome: string | null };

/** Runs one configured check in a directory (run/run-check.ts is the real one; tests may count or fake it). */
export type CheckRunner = (
  check: { name: string; run: string[]; timeoutSeconds: number },
  cwd: string,
  env: NodeJS.ProcessEnv,
  now: () => number,
  confine?: ConfineRequest,
) => Promise<CheckResult>;

export interface LoopDeps {
  store: Store;
  git: Git;
  clock: Clock;
  random: Random;
  hash: Hash;
  owner: LeaseOwner;
  createReviewer: ReviewerFactory;
  /** The environment agents inherit (API keys are read from it by name, never stored). */
  env: NodeJS.ProcessEnv;
  leaseTtlMs: number;
  /** The local checkout the run's git work happens in (the snapshot's `repo` is an identity, not a path). */
  repoRoot: string;
  /** Where this machine keeps prompts, records, keys and worktrees (`<repo>/.revloop`). */
  stateDir: (repoRoot: string) => string;
  onEvent?: ((e: LoopEvent) => void) | undefined;
  /** Kill-harness hook: called at every stage boundary with its name. */
  crashPoint?: ((name: string) => void) | undefined;
  /** Stop at the next boundary (SIGTERM: finish the current call, release the lease). */
  signal?: AbortSignal | undefined;
  /** A fresh, unique run id. */
  newRunId: () => string;
  /**
   * Writes a file of the state dir (a prompt) atomically; writeFileAtomicAsync unless a
   * deterministic simulation needs the write to finish without waiting on the disk.
   */
  writeStateFile?: ((path: string, data: string | Uint8Array) => Promise<void>) | undefined;
  /**
   * The confined runner every role process runs under (io/confine.ts), probed on first use; null
   * from it, or absent: unconfined. Throws ConfinementUnavailableError when required and missing.
   */
  confinement?: (() => Confinement | null) | undefined;
  /** Runs one configured check; run-check.ts (a real process) unless a test simulates checks. */
  runCheck?: CheckRunner | undefined;
}
