/** `export --format rdjson`: reviewdog's DiagnosticResult, validated against reviewdog's own JSON Schema (test/fixtures/rdjson). */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { toRdjson } from '../../src/report/rdjson.js';
import { sampleReport } from './fixtures.js';

const upstream = JSON.parse(
  readFileSync(new URL('../fixtures/rdjson/DiagnosticResult.json', import.meta.url), 'utf8'),
);

/** The same schema with each message closed (`additionalProperties: false`): a misspelt field fails. */
function closed(schema: { definitions: Record<string, Record<string, unknown>> }) {
  const copy = JSON.parse(JSON.stringify(schema)) as typeof schema;
  for (const def of Object.values(copy.definitions)) {
    def.additionalProperties = false;
    // Beside a $ref the upstream file repeats `additionalProperties: true`; Ajv would apply it to the reference.
    for (const prop of Object.values((def.properties ?? {}) as Record<string, Record<string, unknown>>))
      if (prop.$ref) delete prop.additionalProperties;
  }
  return copy;
}
const strict = closed(upstream);

function validator(schema: Record<string, unknown>) {
  // Draft-04 keywords used here mean the same in Ajv 8's draft; only the $schema URI is unknown to it.
  const { $schema: _s, ...rest } = schema;
  return new Ajv({ strict: false, allErrors: true }).compile(rest);
}

describe('rdjson', () => {
  const loose = validator(upstream);
  const tight = validator(strict);

  it.each([
    ['a completed run with findings', sampleReport()],
    ['a clear run', sampleReport({ outcome: 'clear', stopReason: 'clear' })],
    [
      'a run that did not complete',
      sampleReport({ status: 'failed', outcome: null, stopReason: null, reason: 'malformed' }),
    ],
  ])('%s matches reviewdog schema', (_n, report) => {
    const doc = toRdjson(report);
    expect(loose(doc), JSON.stringify(loose.errors)).toBe(true);
    expect(tight(doc), JSON.stringify(tight.errors)).toBe(true);
  });

  it('the closed copy refuses a misspelt field (so the check above means something)', () => {
    const doc = toRdjson(sampleReport()) as { diagnostics: Record<string, unknown>[] };
    const bad = { ...doc, diagnostics: [{ ...doc.diagnostics[0], locaton: {} }] };
    expect(loose(bad)).toBe(true);
    expect(tight(bad)).toBe(false);
  });

  it('blockers are ERROR/WARNING, MINOR and demoted INFO; refuted and overturned are left out', () => {
    const doc = toRdjson(sampleReport()) as {
      diagnostics: {
        severity: string;
        message: string;
        location: { path: string; range: { start: { line: number }; end: { line: number } } };
      }[];
    };
    const bySeverity = doc.diagnostics.map((d) => [d.severity, d.message.split('\n')[0]]);
    expect(bySeverity).toEqual(
      expect.arrayContaining([
        ['ERROR', '[MAJOR] Lost update: counter is read, then written'],
        ['WARNING', '[MODERATE] missing error, handling: 100%'],
        ['INFO', '[MINOR] naming'],
      ]),
    );
    expect(doc.diagnostics.some((d) => /race in cache|null deref/.test(d.message))).toBe(false);
    expect(doc.diagnostics.find((d) => d.message.includes('SQL'))?.message).toContain('&lt;script&gt;&amp;');
    expect(doc.diagnostics.find((d) => d.message.includes('Lost update'))?.location.range).toEqual({
      start: { line: 10 },
      end: { line: 12 },
    });
  });

  it('a run that did not complete says so as an ERROR (invariant 18)', () => {
    const doc = toRdjson(
      sampleReport({ status: 'timed_out', outcome: null, stopReason: null, reason: 'budget_wall' }),
    ) as { severity: string; diagnostics: { severity: string; message: string }[] };
    expect(doc.severity).toBe('ERROR');
    expect(doc.diagnostics[0]).toMatchObject({ severity: 'ERROR' });
    expect(doc.diagnostics[0]?.message).toMatch(/did not complete \(timed_out: budget_wall\)/);
  });
});
