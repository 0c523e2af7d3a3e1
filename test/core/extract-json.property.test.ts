import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractJson, fencedBody, type ScanSteps } from '../../src/core/replies.js';

// What the scan replaced; run here only on short texts, where its backtracking is cheap.
const FENCED = /^```(?:json)?\s*\n([\s\S]*?)\n```$/;
const byRegex = (trimmed: string): string | null => FENCED.exec(trimmed)?.[1] ?? null;

// Texts made of what trips a fence parser: backticks, newlines, other blanks, a language tag.
const unit = fc.constantFrom(
  '`',
  '```',
  '\n',
  ' ',
  '\t',
  '\r',
  '\u00a0',
  '\u2028',
  'json',
  'j',
  '{}',
  '1',
  'x',
);
const reply = fc.string({ unit, maxLength: 60 });
// Shaped like a fence more often than chance would: an opening, blanks, a body, a closing.
const fenceLike = fc
  .tuple(
    fc.constantFrom('', '```', '```json', '```js'),
    fc.string({ unit: fc.constantFrom('\n', ' ', '\t', '\u00a0'), maxLength: 6 }),
    reply,
    fc.constantFrom('', '\n```', '```', '\n``', '\n```\n'),
  )
  .map((parts) => parts.join(''));

describe('extractJson reads a reply in linear time', () => {
  it('finds the same fenced body as the regex it replaced (1000 cases)', () => {
    fc.assert(
      fc.property(fc.oneof(reply, fenceLike), (t) => {
        const trimmed = t.trim();
        expect(fencedBody(trimmed)).toBe(byRegex(trimmed));
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees with the regex on the fence shapes agents send', () => {
    for (const t of [
      '```json\n{"a":1}\n```',
      '```\n{"a":1}\n```',
      '```json  \n\n {"a":1}\n```',
      '```json\n```',
      '```\n\n```',
      '```jsonc\n{}\n```',
      '```json\n{"a":"```"}\n```\n```',
      '{"a":1}',
    ]) {
      expect(fencedBody(t)).toBe(byRegex(t));
    }
  });

  it('looks at each character of a reply at most once (300 cases)', () => {
    const long = fc.tuple(reply, fc.integer({ min: 1, max: 2000 }), reply);
    fc.assert(
      fc.property(long, ([head, times, tail]) => {
        const text = `${head}${'\n'.repeat(times)}${'`'.repeat(times)}${tail}`;
        const counter: ScanSteps = { steps: 0 };
        extractJson(text, counter);
        expect(counter.steps).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 300 },
    );
  });

  it('reads 600 KB replies of backticks and newlines in one pass', () => {
    const blanks = `\`\`\`json${'\n'.repeat(300_000)}${'`\n'.repeat(150_000)}`;
    for (const text of [blanks, `${blanks}\`\`\``]) {
      const counter: ScanSteps = { steps: 0 };
      expect(extractJson(text, counter)).toMatchObject({ ok: false });
      expect(counter.steps).toBeLessThanOrEqual(text.length);
    }
    // The closed one is a fence whose blanks are all scanned, once.
    const counter: ScanSteps = { steps: 0 };
    extractJson(`${blanks}\`\`\``, counter);
    expect(counter.steps).toBe(300_001); // the blanks, and the backtick that ends them
  });
});
