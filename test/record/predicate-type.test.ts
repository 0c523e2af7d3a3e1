/**
 * Issue 16, point 10: verify's predicate type is derived from the writer's
 * (`ReviewPredicate`, what `buildStatement` writes), not written again. The
 * assertions are types: `npm run typecheck` (tsc over test/) fails when they
 * do not hold. That real records pass verify under this type is verify.test.ts's.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Snapshot } from '../../src/core/types.js';
import type { ReviewPredicate } from '../../src/record/statement.js';
import type { VerifiedPredicate } from '../../src/record/verify.js';

describe("verify's predicate type comes from the writer's", () => {
  it('has every field the writer writes, in the predicate and in its snapshot', () => {
    expectTypeOf<keyof VerifiedPredicate>().toEqualTypeOf<keyof ReviewPredicate>();
    expectTypeOf<keyof VerifiedPredicate['snapshot']>().toEqualTypeOf<keyof Snapshot>();
  });

  it('sees a field the writer adds, as unknown until verify checks it', () => {
    type Grown = ReviewPredicate & { reviewedBy: string; snapshot: Snapshot & { shard: number } };
    expectTypeOf<VerifiedPredicate<Grown>>().toHaveProperty('reviewedBy');
    expectTypeOf<VerifiedPredicate<Grown>['reviewedBy']>().toBeUnknown();
    expectTypeOf<VerifiedPredicate<Grown>['snapshot']>().toHaveProperty('shard');
    const read = {} as VerifiedPredicate<Grown>;
    // @ts-expect-error: unchecked, so not usable as the writer's string
    const name: string = read.reviewedBy;
    expect(name).toBeUndefined();
  });

  it("keeps the writer's type for what verify checks, so a change there is a compile error here", () => {
    expectTypeOf<VerifiedPredicate['finalHead']>().toEqualTypeOf<ReviewPredicate['finalHead']>();
    expectTypeOf<VerifiedPredicate['finalDiffDigest']>().toEqualTypeOf<ReviewPredicate['finalDiffDigest']>();
    expectTypeOf<VerifiedPredicate['status']>().toEqualTypeOf<ReviewPredicate['status']>();
    expectTypeOf<VerifiedPredicate['outcome']>().toEqualTypeOf<ReviewPredicate['outcome']>();
    expectTypeOf<VerifiedPredicate['version']>().toEqualTypeOf<ReviewPredicate['version']>();
    expectTypeOf<VerifiedPredicate['snapshot']['mergeBase']>().toEqualTypeOf<Snapshot['mergeBase']>();
    expectTypeOf<VerifiedPredicate['snapshot']['criteriaDigest']>().toEqualTypeOf<
      Snapshot['criteriaDigest']
    >();
  });

  it('leaves what it reads only after a check of its own unknown', () => {
    expectTypeOf<VerifiedPredicate['coverage']>().toBeUnknown();
    expectTypeOf<VerifiedPredicate['findings']>().toBeUnknown();
    expectTypeOf<VerifiedPredicate['snapshot']['configFrom']>().toBeUnknown();
    expectTypeOf<VerifiedPredicate['snapshot']['reviewers']>().toBeUnknown();
  });
});
