import { describe, expect, it } from 'vitest';
import { revisionMatcher } from '../../src/core/ignore.js';

describe('ignore rules apply to the change as admitted, never to the fixer', () => {
  const rules = { globs: ['Cargo.lock', 'dist/**'], attributes: [] };
  it('a path the fixes edited is kept; the rest as the rules say', () => {
    const m = revisionMatcher(rules, ['Cargo.lock']);
    expect(m('Cargo.lock')).toBeNull();
    expect(m('dist/a.js')).toBe('ignore: "dist/**"');
    expect(m('src/a.js')).toBeNull();
  });
  it('no fix edits: the frozen rules', () => {
    expect(revisionMatcher(rules)('Cargo.lock')).toBe('ignore: "Cargo.lock"');
  });
});
