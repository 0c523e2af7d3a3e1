/** Issue 17, point 4: `ignore:` globs and linguist attributes, and the one-line error of a bad glob. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/core/config.js';
import { coverageComplete, coverageOf, partitionFiles, uncovered } from '../../src/core/coverage.js';
import { ignoreLineFor, ignoreMatcher, parseLinguistAttributes } from '../../src/core/ignore.js';

const reviewers = [{ name: 'r', command: ['x'] }];

describe('ignore rules', () => {
  it('matches config globs (dotfiles too) and names the rule', () => {
    const m = ignoreMatcher({ globs: ['**/node_modules/**', 'dist/**', '*.lock'], attributes: [] });
    expect(m('web/node_modules/left-pad/index.js')).toBe('ignore: "**/node_modules/**"');
    expect(m('dist/.cache/x')).toBe('ignore: "dist/**"');
    expect(m('yarn.lock')).toBe('ignore: "*.lock"');
    expect(m('src/dist/x.ts')).toBeNull();
    expect(m('src/index.ts')).toBeNull();
  });

  it('leaves nothing out without rules, and globs alone decide without attributes', () => {
    const none = ignoreMatcher({ globs: [], attributes: [] });
    for (const path of ['a.ts', 'node_modules/x.js', '.gitattributes', 'dist/a.min.js'])
      expect(none(path)).toBeNull();
    const globs = ignoreMatcher({ globs: ['**/*.min.js'], attributes: [] });
    expect(globs('dist/a.min.js')).toBe('ignore: "**/*.min.js"');
    expect(globs('dist/a.js')).toBeNull();
  });

  it('reads linguist attributes as git does: basename patterns at any depth, the last line wins', () => {
    const attributes = parseLinguistAttributes(
      [
        '# generated code',
        '*.pb.go linguist-generated',
        'vendor/ linguist-vendored',
        'vendor/ours/** -linguist-vendored',
        'docs/*.md linguist-documentation',
        '[attr]binary -diff -merge -text',
      ].join('\n'),
    );
    expect(attributes).toHaveLength(3);
    const m = ignoreMatcher({ globs: [], attributes });
    expect(m('api/v1/x.pb.go')).toBe('.gitattributes: "*.pb.go linguist-generated"');
    expect(m('vendor/lib/a.c')).toBe('.gitattributes: "vendor/ linguist-vendored"');
    expect(m('vendor/ours/a.c')).toBeNull();
    expect(m('docs/a.md')).toBeNull();
  });

  it('refuses a glob that does not parse in one line naming the key and the glob', () => {
    const res = parseConfig({ reviewers, ignore: ['dist/**', 'src/[a-'] });
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.path).toBe('ignore.1');
      expect(res.message).toContain('"src/[a-"');
      expect(res.message).not.toContain('\n');
    }
    const rooted = parseConfig({ reviewers, ignore: ['/dist/**'] });
    expect(rooted.ok).toBe(false);
    if (!rooted.ok) expect(rooted.path).toBe('ignore.0');
  });

  it('says the ignore line that leaves a path out', () => {
    expect(ignoreLineFor('assets/big "x".bin')).toBe('ignore: ["assets/big \\"x\\".bin"]');
  });
});

describe('coverage', () => {
  const files = ['a.ts', 'dist/a.js', 'b.ts'];
  const { kept, ignored } = partitionFiles(files, (p) =>
    p.startsWith('dist/') ? 'ignore: "dist/**"' : null,
  );

  it('marks ignored files, lists them with their rule, and is complete once every kept file was reviewed', () => {
    expect(kept).toEqual(['a.ts', 'b.ts']);
    const full = coverageOf(files, ignored, [['a.ts'], ['b.ts']]);
    expect(full.files).toEqual([
      { path: 'a.ts' },
      { path: 'dist/a.js', ignored: 'ignore: "dist/**"' },
      { path: 'b.ts' },
    ]);
    expect(full.reviewed).toEqual(['a.ts', 'b.ts']);
    expect(full.ignored).toEqual([{ path: 'dist/a.js', rule: 'ignore: "dist/**"' }]);
    expect(uncovered(full)).toEqual([]);
    const part = coverageOf(files, ignored, [['a.ts']]);
    expect(uncovered(part)).toEqual(['b.ts']);
    expect(coverageComplete({ x: full, y: full }, ['x', 'y'])).toBe(true);
    expect(coverageComplete({ x: full, y: part }, ['x', 'y'])).toBe(false);
    // A reviewer with no entry reviewed nothing.
    expect(coverageComplete({ x: full }, ['x', 'y'])).toBe(false);
  });
});
