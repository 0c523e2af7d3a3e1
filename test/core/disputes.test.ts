import { describe, expect, it } from 'vitest';
import { matchDisputes } from '../../src/core/disputes.js';

const ids = ['abcdef123456', 'abcdff999999', 'f00'];

describe('matchDisputes', () => {
  it('names a blocker by its full id or a prefix of six characters or more', () => {
    expect(
      matchDisputes(
        [
          { finding: 'abcdef123456', reason: 'full' },
          { finding: 'abcdff', reason: 'prefix' },
        ],
        ids,
      ),
    ).toEqual({
      disputes: [
        { findingId: 'abcdef123456', reason: 'full' },
        { findingId: 'abcdff999999', reason: 'prefix' },
      ],
      unknownIds: [],
    });
  });

  it('keeps apart a prefix shorter than six characters, unless it is a whole id', () => {
    expect(
      matchDisputes(
        [
          { finding: 'abcde', reason: 'too short' },
          { finding: 'f00', reason: 'whole short id' },
        ],
        ids,
      ),
    ).toEqual({ disputes: [{ findingId: 'f00', reason: 'whole short id' }], unknownIds: ['abcde'] });
  });

  it('keeps apart an id naming no blocker of the round, in the order given', () => {
    expect(
      matchDisputes(
        [
          { finding: 'zzzzzzzz', reason: 'a' },
          { finding: 'abcdef1', reason: 'b' },
          { finding: 'yyyyyyyy', reason: 'c' },
        ],
        ids,
      ),
    ).toEqual({
      disputes: [{ findingId: 'abcdef123456', reason: 'b' }],
      unknownIds: ['zzzzzzzz', 'yyyyyyyy'],
    });
  });

  it('matches nothing when the round has no blockers', () => {
    expect(matchDisputes([{ finding: 'abcdef', reason: 'r' }], [])).toEqual({
      disputes: [],
      unknownIds: ['abcdef'],
    });
  });
});
