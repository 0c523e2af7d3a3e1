/** The diff as prompts show it: quoted names in file headers written plainly, nothing else touched. */
import { describe, expect, it } from 'vitest';
import { unquotedNames } from '../../src/core/c-quote.js';

const q = (s: string) =>
  `"${[...Buffer.from(s, 'utf8')].map((b) => (b < 128 ? String.fromCharCode(b) : `\\${b.toString(8)}`)).join('')}"`;

describe('unquotedNames', () => {
  it('writes header names plainly and never touches a hunk line that looks like a header', () => {
    const p = 'src/ünï côde/naïve file.rs';
    const diff = [
      `diff --git ${q(`a/${p}`)} ${q(`b/${p}`)}`,
      'index 1111111..2222222 100644',
      `--- ${q(`a/${p}`)}`,
      `+++ ${q(`b/${p}`)}`,
      '@@ -1 +1 @@',
      `--- ${q('a/ü')}`,
      `+++ ${q('b/ü')}`,
      '',
    ].join('\n');
    expect(unquotedNames(diff).split('\n').slice(0, 7)).toEqual([
      `diff --git a/${p} b/${p}`,
      'index 1111111..2222222 100644',
      `--- a/${p}`,
      `+++ b/${p}`,
      '@@ -1 +1 @@',
      `--- ${q('a/ü')}`,
      `+++ ${q('b/ü')}`,
    ]);
  });

  it('keeps quoted a name whose plain form would break a line or is not UTF-8, and returns a plain diff as is', () => {
    const tab = 'diff --git "a/x\\ny" "b/x\\ny"\nrename from "\\377x"\n';
    expect(unquotedNames(tab)).toBe(tab);
    const plain = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n';
    expect(unquotedNames(plain)).toBe(plain);
  });
});
