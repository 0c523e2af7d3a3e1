/** What publication needs of a forge: read its state, carry out a plan. One implementation per forge. */
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
