import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { toSarif } from '../../src/report/sarif.js';
import { finding, sampleReport } from './fixtures.js';

// ajv-formats is CommonJS: under NodeNext its default import is module.exports, whose `default` is the plugin.
const addFormats = ajvFormats.default;

/**
 * The official SARIF 2.1.0 schema (OASIS, errata01) and Microsoft's rtm.5
 * (stricter in places) are both draft-04; ajv validates them in its default
 * draft-07 mode once the draft-04 `id` is spelled `$id`. Neither uses a
 * draft-04-only keyword. See test/fixtures/sarif/README.md.
 */
// biome-ignore lint/suspicious/noExplicitAny: the test walks deep into SARIF JSON.
type Deep = any;

function sarifValidator(file: string) {
  const schema = JSON.parse(
    readFileSync(new URL(`../fixtures/sarif/${file}`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  const { $schema: _drop, id, ...rest } = schema;
  // rtm.5's language pattern has a stray `]` that is only valid without the
  // `u` flag (errata01 fixed it), so patterns are compiled as plain RegExps.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile({ $id: id as string, ...rest });
}

describe('toSarif', () => {
  const validate = sarifValidator('sarif-schema-2.1.0.json');
  const validateRtm5 = sarifValidator('sarif-2.1.0-rtm.5.json');

  it('validates against the official SARIF 2.1.0 schema (and rtm.5)', () => {
    for (const log of [toSarif(sampleReport()), toSarif(sampleReport(), { allRounds: true })]) {
      const json = JSON.parse(JSON.stringify(log));
      const ok = validate(json);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
      expect(validateRtm5(json)).toBe(true);
    }
  });

  it('the validator does reject an invalid log (the test can fail)', () => {
    const log = toSarif(sampleReport()) as { runs: { results: { level: string }[] }[] };
    const bad = JSON.parse(JSON.stringify(log));
    bad.runs[0].results[0].level = 'fatal';
    expect(validate(bad)).toBe(false);
  });

  it('maps severities to levels and keeps refuted/overturned findings as suppressed results', () => {
    const log = toSarif(sampleReport()) as Deep;
    const results = log.runs[0].results as Deep[];
    expect(results).toHaveLength(6);
    const byClaim = (c: string) => results.find((r: Deep) => r.message.text.startsWith(c));
    expect(byClaim('Lost update').level).toBe('error');
    expect(byClaim('Lost update').ruleId).toBe('revloop/major');
    expect(byClaim('Lost update').locations[0].physicalLocation.region).toEqual({
      startLine: 10,
      endLine: 12,
    });
    expect(byClaim('missing error').level).toBe('warning');
    expect(byClaim('missing error').locations[0].physicalLocation.artifactLocation.uri).toBe('src/b%20c.ts');
    expect(byClaim('naming').level).toBe('note');
    const demoted = byClaim('SQL injection');
    expect(demoted.level).toBe('note');
    expect(demoted.properties.demotion).toMatchObject({ rule: 'no_scenario', from: 'MAJOR' });
    expect(byClaim('race in cache').suppressions[0]).toMatchObject({ kind: 'external', status: 'accepted' });
    expect(byClaim('race in cache').suppressions[0].justification).toContain('cache is per-request');
    expect(byClaim('null deref').suppressions[0].justification).toContain('alice');
    expect(byClaim('Lost update').suppressions).toBeUndefined();
    expect(log.runs[0].properties).toMatchObject({
      runId: 'run-0001',
      status: 'completed',
      outcome: 'findings',
    });
  });

  it('fingerprints are stable across runs, lines and rewording of case or punctuation', () => {
    const a = finding(1, 'correctness', { claim: 'Lost update: counter is read, then written', line: 10 });
    const b = finding(3, 'correctness', { claim: 'lost update  counter is READ then written!', line: 55 });
    const c = finding(1, 'standards', { claim: 'Lost update: counter is read, then written', line: 10 });
    const fp = (f: typeof a) => {
      const r = sampleReport();
      r.findings = [f];
      r.rounds = [{ runId: 'x', round: f.round, head: 'c'.repeat(40), startedAt: 0 }];
      return (toSarif(r) as Deep).runs[0].results[0].partialFingerprints['revloopFinding/v1'];
    };
    expect(fp(a)).toBe(fp(b));
    expect(fp(a)).not.toBe(fp(c));
  });

  it('a run with no rounds yields an empty, valid log', () => {
    const r = sampleReport({ status: 'failed', outcome: null, stopReason: null, reason: 'malformed' });
    r.rounds = [];
    r.findings = [];
    const log = toSarif(r) as Deep;
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(false);
    expect(validate(JSON.parse(JSON.stringify(log)))).toBe(true);
    expect(validateRtm5(JSON.parse(JSON.stringify(log)))).toBe(true);
  });
});
