/**
 * Issue 17, points 5 and 7, in the pure core: an API reviewer's prompt carries
 * the changed files within the context budget, its shared prefix is
 * byte-identical across reviewers and rounds of one revision, and cached
 * input is priced apart.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ContextCandidate, contextReads, packFileContext } from '../../src/core/file-context.js';
import { refuterPrompt, reviewerPrompt, splitPrompt } from '../../src/core/prompt.js';
import { usageCost } from '../../src/core/token-cost.js';
import { sha256 } from '../../src/io/hash.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('reading only what fits (contextReads)', () => {
  /** The reader's loop (loop/api-review-context.ts) over files whose sizes are known ahead. */
  function readAsNeeded(budget: number, files: { path: string; content: Uint8Array; sized: boolean }[]) {
    const read = new Map<string, Uint8Array>();
    const byPath = new Map(files.map((f) => [f.path, f.content]));
    const asked = files.map((f) => ({ path: f.path, bytes: f.sized ? f.content.length : undefined }));
    for (
      let next = contextReads(budget, asked, read);
      next.length > 0;
      next = contextReads(budget, asked, read)
    )
      for (const p of next) read.set(p, byPath.get(p) as Uint8Array);
    const got: ContextCandidate[] = files.map((f) => ({ path: f.path, content: read.get(f.path) ?? null }));
    return { ctx: packFileContext(budget, got), read };
  }

  it('picks what reading every file picks, reading no file that does not fit by its size', () => {
    const file = fc.record({
      path: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
      size: fc.nat(40),
      binary: fc.boolean(),
      sized: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(file, { selector: (f) => f.path, maxLength: 8 }),
        fc.nat(120),
        (spec, budget) => {
          const files = spec.map((f) => {
            const content = new Uint8Array(f.size).fill(0x61);
            if (f.binary && f.size > 0) content[0] = 0;
            return { path: f.path, content, sized: f.sized };
          });
          const all = packFileContext(budget, files);
          const { ctx, read } = readAsNeeded(budget, files);
          expect(ctx.included).toEqual(all.included);
          expect(ctx.usedBytes).toBe(all.usedBytes);
          // The same files left out; only an unread binary one is named over the budget instead.
          expect(ctx.omitted.map((o) => o.path).sort()).toEqual(all.omitted.map((o) => o.path).sort());
          for (const o of ctx.omitted)
            if (read.has(o.path)) expect(all.omitted).toContainEqual(o);
            else expect(o.reason).toBe('over_budget');
          // Nothing read that a size known ahead said could not fit the whole budget.
          for (const f of files)
            if (f.sized && f.content.length > budget) expect(read.has(f.path)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('file context within review.contextBytes', () => {
  const files = [
    { path: 'src/b.ts', content: bytes('b'.repeat(60)) },
    { path: 'src/a.ts', content: bytes('a'.repeat(30)) },
    { path: 'src/c.ts', content: bytes('c'.repeat(20)) },
    { path: 'img/logo.png', content: new Uint8Array([0x89, 0x50, 0, 1]) },
  ];

  it('takes whole files in path order, skips one that does not fit and still tries the next', () => {
    const ctx = packFileContext(60, files);
    expect(ctx.included.map((f) => f.path)).toEqual(['src/a.ts', 'src/c.ts']);
    expect(ctx.usedBytes).toBe(50);
    expect(ctx.omitted).toEqual([
      { path: 'img/logo.png', reason: 'binary' },
      { path: 'src/b.ts', reason: 'over_budget' },
    ]);
  });

  it('never exceeds the budget, whatever the files', () => {
    for (let budget = 0; budget <= 120; budget += 7) {
      const ctx = packFileContext(budget, files);
      const sum = ctx.included.reduce((n, f) => n + bytes(f.text).length, 0);
      expect(sum).toBe(ctx.usedBytes);
      expect(sum).toBeLessThanOrEqual(budget);
      expect(ctx.included.length + ctx.omitted.length).toBe(files.length);
    }
  });

  it('the prompt carries the included files fenced, and names the ones left out', () => {
    const text = reviewerPrompt({
      reviewer: 'r',
      criteria: 'R1',
      diff: '+x',
      hash: sha256,
      files: packFileContext(60, [
        ...files,
        { path: 'src/d.ts', content: null },
        { path: 'src/e.md', content: bytes('```\nx\n```') },
      ]),
    });
    expect(text).toContain(`### src/a.ts\n\`\`\`\n${'a'.repeat(30)}\n\`\`\``);
    // A file holding a fence gets a longer one, so it cannot close the block early.
    expect(text).toContain('### src/e.md\n````\n```\nx\n```\n````');
    expect(text).toContain('Not included (over the context budget): src/b.ts, src/d.ts');
    expect(text).toContain('Not included (binary): img/logo.png');
    expect(text).not.toContain('b'.repeat(60));
  });
});

describe('the shared prefix is byte-identical across reviewers and rounds', () => {
  const files = packFileContext(1000, [{ path: 'src/a.ts', content: bytes('let total = 0;\n') }]);
  const base = { criteria: 'R1: no lost updates', diff: '+total = seen + n;', files, hash: sha256 };

  it('two reviewers of one revision share everything before their own part', () => {
    const a = splitPrompt(reviewerPrompt({ ...base, reviewer: 'correctness', instructions: 'races' }));
    const b = splitPrompt(reviewerPrompt({ ...base, reviewer: 'security' }));
    expect(a.shared.length).toBeGreaterThan(0);
    expect(a.shared).toBe(b.shared);
    expect(a.own).toContain('Reviewer: correctness');
    expect(a.own).toContain('races');
    expect(b.own).toContain('Reviewer: security');
    expect(a.shared).not.toMatch(/correctness|security|races/);
  });

  it('a later round over the same revision rebuilds the same prefix; a new revision changes it', () => {
    // Rounds are not in the prompt: a prompt is a function of the revision's inputs only.
    const r1 = splitPrompt(reviewerPrompt({ ...base, reviewer: 'correctness' }));
    const r2 = splitPrompt(
      reviewerPrompt({
        ...structuredClone({ ...base, hash: undefined }),
        hash: sha256,
        reviewer: 'correctness',
      }),
    );
    expect(r2.shared).toBe(r1.shared);
    const next = splitPrompt(reviewerPrompt({ ...base, diff: '+total += n;', reviewer: 'correctness' }));
    expect(next.shared).not.toBe(r1.shared);
  });

  it('the cut is found from the text alone and loses nothing', () => {
    const p = reviewerPrompt({ ...base, reviewer: 'x', instructions: 'i' });
    const { shared, own } = splitPrompt(p);
    expect(shared + own).toBe(p);
    const claim = { severity: 'MAJOR' as const, file: 'src/a.ts', line: 1, claim: 'lost update' };
    const q = splitPrompt(refuterPrompt({ criteria: 'R1', diff: '+x', claim, hash: sha256 }));
    expect(q.own).toContain('Claim: lost update');
    expect(q.shared).not.toContain('lost update');
    expect(splitPrompt('no heading here')).toEqual({ shared: '', own: 'no heading here' });
  });
});

describe('cached-token pricing', () => {
  const u = { inputTokens: 1000, cacheReadTokens: 8000, cacheWriteTokens: 2000, outputTokens: 100 };

  it('prices reads and writes at their own rates', () => {
    const p = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75 };
    expect(usageCost(p, u)).toBeCloseTo((1000 * 3 + 8000 * 0.3 + 2000 * 3.75 + 100 * 15) / 1e6, 12);
  });

  it('unset cache prices never under-count: a read as input, a write at 1.25 x input', () => {
    const p = { inputPerMTok: 3, outputPerMTok: 15 };
    expect(usageCost(p, u)).toBeCloseTo((1000 * 3 + 8000 * 3 + 2000 * 3.75 + 100 * 15) / 1e6, 12);
    expect(usageCost(undefined, u)).toBe(0);
  });
});
