import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fastConfigKeys } from '../../src/config/fast-keys.js';

const yamlKeys = (text: string): string[] => {
  const v = parse(text) as { keys?: unknown } | null;
  return Array.isArray(v?.keys)
    ? (v.keys as unknown[]).filter((k): k is string => typeof k === 'string')
    : [];
};

const samples = [
  'criteria: REVIEW.md\nkeys:\n  - keys/team.pub\n  - "keys/ci.pub"\n',
  "keys:\n- a.pub   # the team\n- 'b c.pub'\nreviewers: []\n",
  'keys: [a.pub, "b.pub", \'c.pub\']\n',
  'keys: []\ncriteria: R.md\n',
  'criteria: R.md\n',
  'criteria: R.md\nkeys:\n\n  - a.pub\n\n# done\nstore: sqlite:x\n',
  'keys:   # trusted\n  - a.pub\n',
  // Forms the fast reader must hand to the real parser.
  'keys: &k\n  - a.pub\n',
  'keys:\n  - *x\n',
  '---\nkeys: [a.pub]\n',
  'keys:\n  - a.pub\n   - b.pub\n',
  '"keys": [a.pub]\n',
  'keys: a.pub\n',
  'keys:\n  - [a.pub]\n',
  'keys:\n  - a: b\n',
  '{ keys: [a.pub] }\n',
  'keys:\n  - |\n    a.pub\n',
];

describe('fastConfigKeys', () => {
  it('agrees with the yaml parser whenever it answers', () => {
    let answered = 0;
    for (const s of samples) {
      const fast = fastConfigKeys(s);
      if (fast === undefined) continue;
      answered++;
      expect([s, fast]).toEqual([s, yamlKeys(s)]);
    }
    expect(answered).toBe(7);
  });

  it('hands every unusual form to the real parser', () => {
    for (const s of samples.slice(7)) expect([s, fastConfigKeys(s)]).toEqual([s, undefined]);
  });
});
