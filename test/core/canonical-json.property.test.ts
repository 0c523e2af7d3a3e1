import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';

const RUNS = { numRuns: 600 };

/** The same value with each object's keys inserted in an order drawn from `order`. */
function reorder(value: unknown, order: number[], at = { i: 0 }): unknown {
  if (Array.isArray(value)) return value.map((v) => reorder(v, order, at));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    // Rotate by a drawn amount, then maybe reverse: every object gets its own permutation.
    const n = order[at.i++ % order.length] ?? 0;
    const rotated = entries
      .slice(n % Math.max(1, entries.length))
      .concat(entries.slice(0, n % Math.max(1, entries.length)));
    if (n % 2 === 1) rotated.reverse();
    return Object.fromEntries(rotated.map(([k, v]) => [k, reorder(v, order, at)]));
  }
  return value;
}

describe('canonicalJson', () => {
  const json = fc.jsonValue({ maxDepth: 4 });

  it('is invariant under key order', () => {
    fc.assert(
      fc.property(json, fc.array(fc.nat(20), { minLength: 1, maxLength: 10 }), (v, order) => {
        expect(canonicalJson(reorder(v, order))).toBe(canonicalJson(v));
      }),
      RUNS,
    );
  });

  it('round-trips through JSON.parse and is a fixed point', () => {
    fc.assert(
      fc.property(json, (v) => {
        const text = canonicalJson(v);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      RUNS,
    );
  });

  it('is compact and sorted: no whitespace outside strings, keys in code-unit order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.integer(), { maxKeys: 8 }), (o) => {
        // Built by hand: a JS object would put integer-like keys ("0") first whatever the text says.
        const sorted = Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        expect(canonicalJson(o)).toBe(`{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
      }),
      RUNS,
    );
  });

  it('drops undefined fields, writes undefined array items as null, and refuses non-finite numbers', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, { x: [Number.NEGATIVE_INFINITY] }])
      expect(() => canonicalJson(bad)).toThrow(TypeError);
  });
});
