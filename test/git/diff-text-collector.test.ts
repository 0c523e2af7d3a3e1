/**
 * The diff's text gathered as git writes it (diff-text-collector.ts) is the
 * text decoded whole with its binary patches removed, however the bytes are
 * split; the section starts it finds on the way are sectionStarts' of that
 * text, and come only with an all-ASCII diff without a binary patch. Then
 * diffSections given them cuts what it cuts searching for them. Checked on
 * generated diffs cut at random places (a mark or a character split between
 * two pieces included) and on a real repository's canonical diff.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutBinaryPatches } from '../../src/git/binary-patches.js';
import { headerPath } from '../../src/git/diff-parse.js';
import {
  diffSections,
  extendedHeaderEnd,
  firstLine,
  HEADER_SCAN,
  sectionStarts,
} from '../../src/git/diff-sections.js';
import { type CollectOptions, DiffTextCollector } from '../../src/git/diff-text-collector.js';
import { createGit } from '../../src/git/index.js';
import { binaryBytes } from '../helpers/binary-bytes.js';
import { makeRepo, type TestRepo } from '../helpers/git-repo.js';

/** Lines a section's hunk may hold: plain, a marker-like text line, non-ASCII ones. */
const line = fc.constantFrom(
  '+const a = 1;',
  ' context',
  '-gone',
  '+GIT binary patch',
  '+diff --git a/not b/a-header',
  '+é',
  '+😀 emoji',
  '',
);

const section = fc.record({
  path: fc.constantFrom('a.ts', 'src/b.js', '"q\\303\\251.txt"', 'x'),
  binary: fc.boolean(),
  lines: fc.array(line, { maxLength: 8 }),
});

function render(s: { path: string; binary: boolean; lines: string[] }): string {
  const head = `diff --git a/${s.path} b/${s.path}\nindex 1111111..2222222 100644\n`;
  if (s.binary) return `${head}GIT binary patch\nliteral 5\nzcmV?d00001\n\nliteral 0\nHcmV?d00001\n\n`;
  return `${head}--- a/${s.path}\n+++ b/${s.path}\n@@ -1 +1 @@\n${s.lines.map((l) => `${l}\n`).join('')}`;
}

const diffBytes = fc
  .record({ prefix: fc.constantFrom('', 'x\n'), sections: fc.array(section, { maxLength: 6 }) })
  .map(({ prefix, sections }) => Buffer.from(prefix + sections.map(render).join(''), 'utf8'));

/** The full text with each left-out file's section cut to its extended header, as diff-sections reads headers. */
function cutAsLeftOut(text: string, leavesOut: (path: string) => boolean): string {
  const starts = sectionStarts(text);
  const parts = [text.slice(0, starts[0] ?? text.length)];
  starts.forEach((start, i) => {
    const section = text.slice(start, starts[i + 1] ?? text.length);
    const scan = section.slice(0, HEADER_SCAN);
    parts.push(leavesOut(headerPath(firstLine(section))) ? scan.slice(0, extendedHeaderEnd(scan)) : section);
  });
  return parts.join('');
}

function collect(bytes: Buffer, cuts: number[], opts?: CollectOptions) {
  const c = new DiffTextCollector(opts);
  let from = 0;
  for (const at of [...new Set(cuts.map((x) => x % (bytes.length + 1)))].sort((a, b) => a - b)) {
    c.push(bytes.subarray(from, at));
    from = at;
  }
  c.push(bytes.subarray(from));
  return c.finish();
}

describe('DiffTextCollector', () => {
  it('gives the text decoded whole without binary patches, and sectionStarts only for ASCII without them (400 cases)', () => {
    fc.assert(
      fc.property(diffBytes, fc.array(fc.nat(), { maxLength: 12 }), (bytes, cuts) => {
        const got = collect(bytes, cuts);
        const whole = bytes.toString('utf8');
        expect(got.text).toBe(withoutBinaryPatches(whole));
        expect(got.textBytes).toBe(bytes.length);
        if (got.text === null) throw new Error('no text');
        const plain = /^[\x00-\x7f]*$/.test(whole) && !whole.includes('\nGIT binary patch\n');
        expect(got.sectionStarts !== undefined).toBe(plain);
        if (got.sectionStarts) {
          expect(got.sectionStarts).toEqual(sectionStarts(got.text));
          expect(diffSections(got.text, 40, got.sectionStarts)).toEqual(diffSections(got.text, 40));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps a left-out file to its extended header, however the bytes are split (400 cases)', () => {
    fc.assert(
      fc.property(
        diffBytes,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.subarray(['a.ts', 'src/b.js', 'q\u00e9.txt', 'x']),
        (bytes, cuts, out) => {
          const leavesOut = (path: string) => out.includes(path);
          const got = collect(bytes, cuts, { leavesOut });
          const expected = withoutBinaryPatches(cutAsLeftOut(bytes.toString('utf8'), leavesOut));
          expect(got.text).toBe(expected);
          expect(got.textBytes).toBe(Buffer.byteLength(cutAsLeftOut(bytes.toString('utf8'), leavesOut)));
          if (got.sectionStarts) expect(got.sectionStarts).toEqual(sectionStarts(expected));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('gives no text past its limit, and says how long the text kept would be', () => {
    const bytes = Buffer.from(
      [1, 2, 3].map((i) => render({ path: `f${i}`, binary: false, lines: ['+x'] })).join(''),
    );
    const over = collect(bytes, [7, 40], { maxTextBytes: bytes.length - 1 });
    expect(over).toEqual({ text: null, textBytes: bytes.length });
    // What the ignore rules leave out is not counted: the same diff fits once f2 is left out.
    const fits = collect(bytes, [7, 40], { maxTextBytes: bytes.length - 1, leavesOut: (p) => p === 'f2' });
    expect(fits.text).not.toBeNull();
    expect(fits.text).not.toContain('+++ b/f2');
  });

  it('takes pieces of one byte each (every mark split across pieces)', () => {
    const bytes = Buffer.from(`${render({ path: 'a', binary: false, lines: ['+x'] }).repeat(3)}`);
    const got = collect(
      bytes,
      Array.from({ length: bytes.length }, (_, i) => i),
    );
    expect(got.text).toBe(bytes.toString('latin1'));
    expect(got.sectionStarts).toEqual(sectionStarts(got.text ?? ''));
    expect(got.sectionStarts).toHaveLength(3);
    // And a left-out file split byte by byte keeps exactly its header.
    const cut = collect(
      bytes,
      Array.from({ length: bytes.length }, (_, i) => i),
      { leavesOut: () => true },
    );
    expect(cut.text).toBe(cutAsLeftOut(bytes.toString('latin1'), () => true));
    expect(cut.text).not.toContain('+x');
  });
});

describe('diffRead on a real repository', () => {
  let repo: TestRepo;
  let base: string;
  beforeAll(async () => {
    repo = await makeRepo();
    repo.write('a.ts', 'export const a = 1;\n');
    repo.write('b.ts', 'export const b = 1;\n');
    base = repo.commit('base');
  });
  afterAll(() => repo.cleanup());

  async function readAt(files: Record<string, string | Buffer>) {
    for (const [path, content] of Object.entries(files)) repo.write(path, content);
    const head = repo.commit(`change ${Object.keys(files).join(' ')}`);
    return createGit().diffRead(repo.dir, base, head, Number.POSITIVE_INFINITY);
  }

  it('finds the starts of an ASCII diff as it streams in, and leaves them to the search otherwise', async () => {
    const ascii = await readAt({ 'a.ts': 'export const a = 2;\n', 'c/new.ts': 'export const c = 3;\n' });
    expect(ascii.sectionStarts).toEqual(sectionStarts(ascii.text ?? ''));
    expect(ascii.sectionStarts).toHaveLength(2);

    const accented = await readAt({ 'b.ts': "export const b = 'é';\n" });
    expect(accented.sectionStarts).toBeUndefined();
    expect(sectionStarts(accented.text ?? '')).toHaveLength(3);

    const binary = await readAt({ 'b.ts': 'export const b = 2;\n', 'logo.bin': binaryBytes(2_000, 1) });
    expect(binary.sectionStarts).toBeUndefined();
    expect(binary.text).toContain('Binary files /dev/null and b/logo.bin differ');
  });

  it('a file left out keeps its header in the text, and its bytes in the digest (invariants 3, 4, 14)', async () => {
    repo.write('data/big.txt', 'row\n'.repeat(5_000));
    repo.write('a.ts', 'export const a = 5;\n');
    const head = repo.commit('data and code');
    const git = createGit();
    const read = await git.diffRead(repo.dir, base, head, Number.POSITIVE_INFINITY, (p) =>
      p.startsWith('data/'),
    );
    // The digest is the canonical diff's, whatever the text keeps: verify recomputes it without rules.
    expect(read.digest).toBe(await git.diffDigest(repo.dir, base, head));
    expect(read.text).toContain('diff --git a/data/big.txt b/data/big.txt\nnew file mode 100644\nindex ');
    expect(read.text).not.toContain('+row');
    expect(read.text).toContain('+export const a = 5;');
  });
});
