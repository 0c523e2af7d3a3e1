/**
 * Invariant 4: before each stage and before recording its result, the inputs
 * are checked against the snapshot. A new push supersedes the run; a diff that
 * no longer hashes to its digest is stale context; changed criteria or config
 * are changed rules.
 */
import { unfinishedEnd } from '../core/run-state.js';
import { sha256 } from '../io/hash.js';
import { inBackground } from './background.js';
import { type RunContext, RunEnd } from './run-context.js';

/**
 * `before` a stage reuses what an earlier check established for the same
 * commits, and is skipped altogether when nothing ran since the last check
 * passed (the previous stage's `record` check, a transaction ago);
 * `record` (before a result is written) always checks the ref and hashes the
 * diff again: with `fresh` from {@link startFreshDigest}, a read made while
 * the stage's calls ran.
 */
export async function checkFrozen(
  ctx: RunContext,
  expectedDiffDigest: string,
  when: 'before' | 'record' = 'before',
  fresh?: Promise<string>,
): Promise<void> {
  const { git } = ctx.deps;
  const s = ctx.snapshot;
  const mark = `${ctx.run.head}:${ctx.attemptsMade}`;
  if (when === 'before' && ctx.frozenMark === mark) return;
  // The three reads are independent: start them together, judge them in order.
  const source = s.configFrom === 'head' ? ctx.run.head : s.base;
  const headHeld =
    s.headRef === null ? Promise.resolve(true) : git.refHolds(ctx.deps.repoRoot, s.headRef, s.head);
  const digestNow = (when === 'record' && fresh) || ctx.diffDigest(ctx.run.head, when === 'record');
  const rulesNow = Promise.all([ctx.readBlob(source, s.configPath), ctx.readBlob(source, s.criteriaPath)]);
  digestNow.catch(() => undefined);
  rulesNow.catch(() => undefined);
  if (s.headRef !== null && !(await headHeld.catch(() => false))) {
    const now = await git.resolve(ctx.deps.repoRoot, s.headRef).catch(() => null);
    if (now !== s.head) {
      throw new RunEnd(
        unfinishedEnd(
          'aborted',
          'superseded',
          `${s.headRef} moved from ${s.head.slice(0, 12)} to ${now ? now.slice(0, 12) : '(deleted)'}`,
        ),
      );
    }
  }
  const digest = await digestNow;
  if (digest !== expectedDiffDigest) {
    throw new RunEnd(
      unfinishedEnd(
        'failed',
        'stale_context',
        `diff of ${ctx.run.head.slice(0, 12)} no longer hashes to its digest`,
      ),
    );
  }
  // With configFrom=head the rules live at the revision under review, which a fix can edit.
  const [config, criteria] = await rulesNow;
  if (!criteria || sha256(criteria) !== s.criteriaDigest) {
    throw new RunEnd(
      unfinishedEnd('aborted', 'rules_changed', `criteria ${s.criteriaPath} changed since admission`),
    );
  }
  if (!config || sha256(config) !== s.configDigest) {
    throw new RunEnd(
      unfinishedEnd('aborted', 'rules_changed', `config ${s.configPath} changed since admission`),
    );
  }
  ctx.frozenMark = mark;
}

/**
 * Starts the record check's fresh hash of the run head's diff beside the
 * stage's calls, once the stage began: a git process whose cost the calls'
 * wait hides. The ref and the rules are still read at record time.
 */
export function startFreshDigest(ctx: RunContext): Promise<string> {
  const head = ctx.run.head;
  return inBackground(() => ctx.diffDigest(head, true));
}
