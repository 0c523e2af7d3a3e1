/**
 * Invariant 4: before each stage and before recording its result, the inputs
 * are checked against the snapshot. A new push supersedes the run; a diff that
 * no longer hashes to its digest is stale context; changed criteria or config
 * are changed rules.
 */
import { unfinishedEnd } from '../../core/run-state.js';
import { sha256 } from '../../io/hash.js';
import { besideNextCall, type Deferred } from '../calls/index.js';
import { type RunContext, RunEnd } from './run-context.js';

/**
 * `before` a stage reuses what an earlier check established for the same
 * commits, and is skipped altogether when nothing ran since the last check
 * passed (the previous stage's `record` check, a transaction ago);
 * `record` (before a result is written) always checks the ref and the rules
 * again. The diff is compared as this process read it, once per revision: a
 * run's base and head are commit ids and the canonical diff pins every
 * option, so the diff of the range cannot change under the run, and hashing
 * 20 MB again per stage bought nothing but time (bench: large-change). A process that did not
 * read it yet (a resume, another worker) reads and compares it afresh.
 */
export async function checkFrozen(
  ctx: RunContext,
  expectedDiffDigest: string,
  when: 'before' | 'record' = 'before',
  fresh?: Deferred<string>,
): Promise<void> {
  const head = ctx.run.head;
  const mark = ctx.freeze.mark(head);
  if (when === 'before' && ctx.freeze.isCurrent(head)) return;
  const digestNow = (when === 'record' && fresh?.get()) || ctx.facts.digest(head);
  digestNow.catch(() => undefined);
  await judge(ctx, head, async () => {
    if ((await digestNow) !== expectedDiffDigest) {
      throw new RunEnd(
        unfinishedEnd(
          'failed',
          'stale_context',
          `diff of ${head.slice(0, 12)} no longer hashes to its digest`,
        ),
      );
    }
  });
  ctx.freeze.passed(mark);
}

/**
 * The head ref, and the rules as `head` holds them, without the diff: what a
 * fix's new commit is checked against before the run's ref moves to it (its
 * diff is read at the same moment, and that digest is what gets recorded).
 */
export function checkRefAndRules(ctx: RunContext, head: string): Promise<void> {
  return judge(ctx, head, null);
}

/** Reads the ref and the rules together, then judges ref, diff (when given), rules, in that order. */
async function judge(ctx: RunContext, head: string, diffCheck: (() => Promise<void>) | null): Promise<void> {
  const { git } = ctx.deps;
  const s = ctx.snapshot;
  // With configFrom=head the rules live at the revision under review, which a fix can edit.
  const source = s.configFrom === 'head' ? head : s.base;
  const headHeld =
    s.headRef === null ? Promise.resolve(true) : git.refHolds(ctx.deps.repoRoot, s.headRef, s.head);
  const rulesNow = Promise.all([
    ctx.facts.readBlob(source, s.configPath),
    ctx.facts.readBlob(source, s.criteriaPath),
  ]);
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
  await diffCheck?.();
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
}

/**
 * The digest the record check compares: the revision's memoised read (see
 * {@link checkFrozen}), taken beside the stage's first call in case this
 * process has not read that diff yet.
 */
export function startFreshDigest(ctx: RunContext): Deferred<string> {
  const head = ctx.run.head;
  return besideNextCall(ctx.sideWork, () => ctx.facts.digest(head));
}

/**
 * Records that a full check has passed for `head` with no call since: a fix's
 * new commit, whose ref and rules were just checked and whose diff was just
 * read fresh. The next stage's `before` check then costs nothing.
 */
export function markFrozen(ctx: RunContext, head: string): void {
  ctx.freeze.passed(ctx.freeze.mark(head));
}
