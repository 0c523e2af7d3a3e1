/**
 * The reviewer port: one call of a reviewer, refuter or fixer. Adapters in
 * src/reviewers turn a prompt into a parsed reply or a classified error; no
 * adapter decides anything about the run.
 */
import type { CallClass, Role } from '../core/types.js';

export interface CallRequest {
  callKey: string;
  role: Role;
  /** The configured name of the reviewer (or 'refuter' / 'fixer'). */
  name: string;
  round: number;
  prompt: string;
  promptDigest: string;
  base: string;
  /** The revision under review. */
  head: string;
  /** A checkout of exactly `head` (the fixer's worktree for the fixer). */
  repoDir: string;
  /**
   * Directories the call may read and never write, beside its checkout: the
   * judge tree its own files run from (src/loop/checkout/judge-tree.ts). A confined
   * runner binds them read-only.
   */
  readOnlyDirs?: string[] | undefined;
  /** Absolute deadline for this call, epoch ms. */
  deadlineMs: number;
  signal?: AbortSignal | undefined;
  /**
   * Called once, when the endpoint's first reply event arrives: by then it has
   * read the prompt, and a prefix it caches is cached (the round's other
   * calls of the same prefix start then: review-calls.ts).
   */
  onFirstBytes?: (() => void) | undefined;
  /** Sampling the run is frozen to (API adapters send it; others cannot). Absent: the endpoint's default. */
  sampling?: { temperature: number | null; seed?: number | undefined } | undefined;
  /** Which of a reviewer's samples on the same prompt (`review.samples`); absent: the first. */
  sample?: number | undefined;
}

export type CallResult =
  | {
      ok: true;
      /** The reply parsed as JSON (validated against the role's schema by the adapter). */
      reply: unknown;
      /** The model the endpoint reported, when it did. */
      modelId: string | null;
      costUsd: number;
      /** What the attempt records beside `ok`: how the reply was asked for, the tokens it used. */
      note?: string | undefined;
    }
  | {
      ok: false;
      class: Exclude<CallClass, 'ok'>;
      detail: string;
      /** Honoured by the retry policy for rate limits. */
      retryAfterMs?: number | undefined;
      /** What the failed call was reported to cost: a paid reply that is rejected keeps its cost (invariant 12). */
      costUsd?: number | undefined;
    };

export interface Reviewer {
  readonly name: string;
  /**
   * Whether the agent reads or writes files in `repoDir` (a local process, a
   * script that edits). An agent that only sees its prompt (a model API) never
   * waits for the checkout to be readied, and no status check follows it.
   */
  readonly usesCheckout: boolean;
  /**
   * Whether the endpoint caches a prompt's shared prefix (Anthropic's
   * `cache_control`, OpenAI's automatic prefix cache): calls of one prefix
   * then start after the first one has written it, not beside it.
   */
  readonly cachesPrefix?: boolean;
  call(req: CallRequest): Promise<CallResult>;
}
