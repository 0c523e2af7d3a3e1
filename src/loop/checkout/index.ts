/**
 * The checkout room: the run's private checkout that reviewers read, the
 * fixer edits and checks run in (worktree.ts, its state in
 * worktree-state.ts), the read-only judge tree the agents' own files run
 * from (judge-tree.ts), and the pool of checkouts reused across runs
 * (pool/). Other rooms import it from here only.
 */
export { inJudgeTree, type JudgeTree, judgeTreeFor, sweepJudgeTrees } from './judge-tree.js';
export { poolDir } from './pool/location.js';
export {
  type CheckoutContext,
  checkoutForReaders,
  ensureWorktree,
  holdLane,
  releaseCheckout,
  removeRunWorktrees,
  takeCheckout,
} from './worktree.js';
export { WorktreeState } from './worktree-state.js';
