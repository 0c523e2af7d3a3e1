/**
 * Issue 17, point 3: the chunk plan. A diff that fits is one chunk whose text
 * is the diff byte for byte (today's prompt and call key); a larger one is
 * split by file, a file split at hunks only when it alone is over the limit;
 * a file whose one hunk is over the limit cannot be sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planChunks } from '../../src/core/chunks.js';
import { diffSections } from '../../src/git/diff-sections.js';

const RUNS = { numRuns: 300 };

function fileDiff(path: string, hunks: string[]): string {
  const q = /[ "\t]/.test(path) ? (p: string) => `"${p.replace(/"/g, '\\"')}"` : (p: string) => p;
  return [
    `diff --git ${q(`a/${path}`)} ${q(`b/${path}`)}`,
    'index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644',
    `--- ${q(`a/${path}`)}`,
    `+++ ${q(`b/${path}`)}`,
    ...hunks.map((h, i) => `@@ -${i * 10 + 1},1 +${i * 10 + 1},1 @@\n-old ${i}\n+${h}`),
  ].join('\n');
}

const diffOf = (files: { path: string; hunks: string[] }[]) =>
  `${files.map((f) => fileDiff(f.path, f.hunks)).join('\n')}\n`;

describe('diffSections', () => {
  it('partitions the diff by file, paths read back (spaces and quotes included)', () => {
    const files = [
      { path: 'src/a.ts', hunks: ['x'] },
      { path: 'dir with space/b c.ts', hunks: ['y', 'z'] },
      { path: 'q"uote.md', hunks: ['w'] },
    ];
    const diff = diffOf(files);
    const sections = diffSections(diff, 1 << 30);
    expect(sections.map((s) => s.path)).toEqual(files.map((f) => f.path));
    expect(sections.map((s) => s.text).join('')).toBe(diff);
    expect(sections.every((s) => s.pieces === undefined)).toBe(true);
  });

  it('gives a file over the limit its pieces: the header with each hunk', () => {
    const diff = diffOf([{ path: 'big.txt', hunks: ['a'.repeat(50), 'b'.repeat(50), 'c'.repeat(50)] }]);
    const [s] = diffSections(diff, 100);
    expect(s?.pieces).toHaveLength(3);
    for (const p of s?.pieces ?? []) {
      expect(p.text.startsWith('diff --git a/big.txt b/big.txt\n')).toBe(true);
      expect(p.text.match(/^@@ /gm)).toHaveLength(1);
    }
  });
});

describe('planChunks', () => {
  it('keeps a diff under the limit as one chunk whose text is the diff itself', () => {
    const diff = diffOf([
      { path: 'a', hunks: ['1'] },
      { path: 'b', hunks: ['2'] },
    ]);
    const plan = planChunks(diffSections(diff, 200_000), 200_000);
    expect(plan).toEqual({ ok: true, chunks: [{ index: 0, files: ['a', 'b'], text: diff }] });
  });

  it('names the file whose single hunk no call can carry', () => {
    const diff = diffOf([
      { path: 'ok.txt', hunks: ['small'] },
      { path: 'huge.min.js', hunks: ['x'.repeat(5000)] },
    ]);
    const plan = planChunks(diffSections(diff, 1000), 1000);
    expect(plan.ok).toBe(false);
    if (!plan.ok) expect(plan.path).toBe('huge.min.js');
  });

  it('property: every chunk fits, files stay whole unless alone over the limit, nothing is lost or reordered', () => {
    const file = fc.record({
      path: fc.stringMatching(/^[a-z]{1,6}(\/[a-z]{1,6}){0,2}\.[a-z]{1,3}$/),
      hunks: fc.array(
        fc.string({ minLength: 1, maxLength: 120 }).map((s) => s.replace(/\n/g, ' ')),
        {
          minLength: 1,
          maxLength: 6,
        },
      ),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(file, { minLength: 1, maxLength: 12, selector: (f) => f.path }),
        fc.integer({ min: 300, max: 2000 }),
        (files, limit) => {
          const diff = diffOf(files);
          const sections = diffSections(diff, limit);
          const plan = planChunks(sections, limit);
          if (!plan.ok) {
            // Only when one of the named file's pieces is over the limit.
            const s = sections.find((x) => x.path === plan.path);
            expect((s?.pieces ?? [s]).some((p) => (p?.bytes ?? 0) > limit)).toBe(true);
            return;
          }
          for (const c of plan.chunks) expect(Buffer.byteLength(c.text)).toBeLessThanOrEqual(limit);
          expect(plan.chunks.map((c) => c.index)).toEqual(plan.chunks.map((_, i) => i));
          // Every file appears, in diff order; a file in more than one chunk is alone over the limit.
          const seen = plan.chunks.flatMap((c) => c.files);
          expect([...new Set(seen)]).toEqual(sections.map((s) => s.path));
          for (const s of sections) {
            const holding = plan.chunks.filter((c) => c.files.includes(s.path));
            if (holding.length > 1) {
              expect(s.bytes).toBeGreaterThan(limit);
              for (const c of holding) expect(c.files).toEqual([s.path]);
            }
          }
          // Unsplit files: the chunks' texts are the diff, in order.
          if (sections.every((s) => s.bytes <= limit))
            expect(plan.chunks.map((c) => c.text).join('')).toBe(diff);
          // Given the diff they were cut from, the chunks are slices of it where they can be, and the
          // same: with every section, and with some left out (ignored), whose neighbours are not adjacent.
          expect(planChunks(sections, limit, diff)).toEqual(plan);
          const kept = sections.filter((_, i) => i % 3 !== 1);
          expect(planChunks(kept, limit, diff)).toEqual(planChunks(kept, limit));
        },
      ),
      RUNS,
    );
  });
});
