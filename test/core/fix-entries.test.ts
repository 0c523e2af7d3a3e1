import { describe, expect, it } from 'vitest';
import { linkLeavesRepo, refusedFixEntry } from '../../src/core/fix-entries.js';

describe('a link out of the repository', () => {
  it.each([
    ['a.txt', 'b.txt', false],
    ['src/a', '../README.md', false],
    ['src/deep/a', '../../x/./y', false],
    ['a', '../outside', true],
    ['src/a', '../../outside', true],
    ['src/a', '/etc/passwd', true],
    ['a', '', true],
    ['src/a', 'x/../../../y', true],
  ] as const)('%s -> %s leaves: %s', (path, target, out) => {
    expect(linkLeavesRepo(path, target)).toBe(out);
  });
});

describe('what a fix commit may not carry', () => {
  const file = (path: string, oldMode = '100644', newMode = '100644') => ({ path, oldMode, newMode });
  it.each([
    [[file('a.js')], null],
    [[file('vendored', '000000', '160000')], /adds submodule vendored/],
    [[file('vendored', '160000', '160000')], /moves submodule vendored/],
    [[file('vendored', '160000', '000000')], /removes submodule vendored/],
    [[file('lib', '100644', '120000')], /makes lib a symbolic link out/],
    [[file('ok', '000000', '120000')], null],
  ] as const)('%j', (changes, refused) => {
    const targets = new Map([
      ['lib', '/etc'],
      ['ok', 'a.js'],
    ]);
    const why = refusedFixEntry(changes, targets);
    if (refused === null) expect(why).toBeNull();
    else expect(why).toMatch(refused);
  });
});
