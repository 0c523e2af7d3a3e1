/** What publication needs of a forge: read its state, carry out a plan. One implementation per forge. */
import type { ForgeRefusedError } from './errors.js';
import type { ForgeName, ForgeState, PublishPlan } from './types.js';

export interface ExecuteResult {
  writes: number;
  /** The run's review (GitHub) or summary note (GitLab). */
  reviewId: string | null;
  created: number;
  updated: number;
  resolved: number;
  check: 'check_run' | 'status' | null;
}

export interface ForgeAdapter {
  forge: ForgeName;
  /** "owner/repo#7", "group/project!7": for messages. */
  where: string;
  read(): Promise<ForgeState>;
  execute(plan: PublishPlan, runId: string): Promise<ExecuteResult>;
}

/**
 * A write that counts itself into `out.writes`, or fails as a refusal naming
 * what was refused and how many writes landed before it (exit 8 or 9).
 */
export const countedWrite =
  (out: ExecuteResult, refusal: (what: string, written: number, err: unknown) => ForgeRefusedError) =>
  async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      const r = await call();
      out.writes++;
      return r;
    } catch (err) {
      throw refusal(what, out.writes, err);
    }
  };
