/**
 * Chunk boundaries fall by path, not by byte offset: a push that edits one
 * file (a line more or less) changes the chunk holding it and at most one
 * neighbour, so every other chunk's prompt is the same and its verdict can be
 * reused. Packing files greedily in diff order failed this: one file growing
 * moved every later boundary.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutScore, type DiffSection, planChunks } from '../../src/core/chunks.js';

const section = (path: string, bytes: number, version = 0): DiffSection => {
  const head = `diff --git a/${path} b/${path}\n@@ v${version} @@\n`;
  return {
    path,
    text: head + 'x'.repeat(Math.max(0, bytes - head.length)),
    bytes: Math.max(bytes, head.length),
  };
};

const changedChunks = (before: DiffSection[], after: DiffSection[], limit: number): number => {
  const a = planChunks(before, limit);
  const b = planChunks(after, limit);
  if (!a.ok || !b.ok) throw new Error('every file fits');
  const old = new Set(a.chunks.map((c) => c.text));
  return b.chunks.filter((c) => !old.has(c.text)).length;
};

describe('stable chunk boundaries', () => {
  it('property: a one-line edit to one file changes at most its chunk and one neighbour', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}\.[a-z]{1,3}$/), {
          minLength: 2,
          maxLength: 80,
        }),
        fc.integer({ min: 2_000, max: 20_000 }),
        fc.array(fc.integer({ min: 100, max: 1_500 }), { minLength: 80, maxLength: 80 }),
        fc.nat(),
        fc.integer({ min: -80, max: 80 }),
        (paths, limit, sizes, which, delta) => {
          const files = paths.map((p, i) => section(p, sizes[i] as number));
          const at = which % files.length;
          const edited = files.map((f, i) =>
            i === at ? section(f.path, (sizes[i] as number) + delta, 1) : f,
          );
          // A diff that fits one call is one chunk (the rule recorded runs' keys rest on), so an edit
          // that takes it over the limit replans it whole: the property is about chunked diffs.
          const bytes = (fs: DiffSection[]) => fs.reduce((n, f) => n + f.bytes, 0);
          fc.pre(bytes(files) > limit && bytes(edited) > limit);
          // The bound holds while the edited file keeps its rank among the files' cut scores (a run
          // over the limit is cut where the lowest score is) and the edit is smaller than any file
          // (a file growing past a sibling smaller than the growth splits two nested groups).
          const score = (f: DiffSection) => cutScore(f, limit);
          const [was, now] = [score(files[at] as DiffSection), score(edited[at] as DiffSection)];
          fc.pre(files.every((g, i) => i === at || was < score(g) === now < score(g)));
          expect(changedChunks(files, edited, limit)).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('a file growing early in the diff leaves every later chunk as it was (greedy packing moved them all)', () => {
    const files = Array.from({ length: 60 }, (_, i) => section(`src/f${i}.ts`, 700));
    const grown = files.map((f, i) => (i === 3 ? section(f.path, 1_300, 1) : f));
    const before = planChunks(files, 4_000);
    const after = planChunks(grown, 4_000);
    if (!before.ok || !after.ok) throw new Error('fits');
    expect(before.chunks.length).toBeGreaterThan(8);
    expect(changedChunks(files, grown, 4_000)).toBeLessThanOrEqual(2);
    // Chunks past the edited one and its neighbour keep their files, index and text.
    const holding = before.chunks.findIndex((c) => c.files.includes('src/f3.ts'));
    expect(after.chunks.length).toBe(before.chunks.length);
    expect(after.chunks.slice(holding + 2)).toEqual(before.chunks.slice(holding + 2));
  });

  it('chunks average about half the limit', () => {
    const files = Array.from({ length: 2_000 }, (_, i) => section(`pkg/m${i}/index.ts`, 500));
    const plan = planChunks(files, 20_000);
    if (!plan.ok) throw new Error('fits');
    const mean = (2_000 * 500) / plan.chunks.length;
    expect(mean).toBeGreaterThan(20_000 * 0.3);
    expect(mean).toBeLessThan(20_000 * 0.7);
  });
});
