import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repositoryUri, toSarif } from '../../src/report/sarif.js';
import { crashedReviewerReport, finding, sampleReport } from './fixtures.js';
import { category, checkGithubSarif, incompleteBecause } from './github-sarif-rules.js';

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

const validate = sarifValidator('sarif-schema-2.1.0.json');
const validateRtm5 = sarifValidator('sarif-2.1.0-rtm.5.json');

describe('toSarif', () => {
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
      startColumn: 1,
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

  it('a run with no rounds is a valid log that says it is incomplete (never an empty, successful-looking one)', () => {
    const r = sampleReport({ status: 'failed', outcome: null, stopReason: null, reason: 'malformed' });
    r.rounds = [];
    r.findings = [];
    const log = toSarif(r) as Deep;
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].invocations[0].executionSuccessful).toBe(false);
    expect(incompleteBecause(log)).toEqual([
      'executionSuccessful: false',
      'error notification: run run-0001 failed: malformed',
    ]);
    expect(validate(JSON.parse(JSON.stringify(log)))).toBe(true);
    expect(validateRtm5(JSON.parse(JSON.stringify(log)))).toBe(true);
  });
});

const crashed = crashedReviewerReport;

describe("toSarif by GitHub code scanning's rules (checkGithubSarif)", () => {
  const json = (x: unknown): Deep => JSON.parse(JSON.stringify(x));

  it('the checker does catch each documented break (the tests below can fail)', () => {
    const log = json(toSarif(sampleReport()));
    expect(checkGithubSarif(log)).toEqual([]);
    delete log.runs[0].tool.driver.rules[0].help;
    log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = 'src%5Cwallet.js';
    log.runs[0].results[1].partialFingerprints = log.runs[0].results[0].partialFingerprints;
    expect(checkGithubSarif(log)).toEqual([
      expect.stringMatching(/^reportingDescriptor.help.text: runs\[0\].tool.driver.rules\[0\]: required/),
      expect.stringMatching(/^physicalLocation.artifactLocation.uri: .*backslash in path: src%5Cwallet.js/),
      expect.stringMatching(/^result.partialFingerprints: runs\[0\].results\[1\]: shared with a result at/),
    ]);
  });

  it.each([
    ['a completed run', () => sampleReport()],
    ['every round', () => sampleReport()],
    ['a run with a reviewer that crashed', crashed],
  ])('%s follows every documented rule', (name, make) => {
    const log = json(toSarif(make(), { allRounds: name === 'every round' }));
    expect(checkGithubSarif(log)).toEqual([]);
    expect(validate(log)).toBe(true);
  });

  it('every rule has help.text', () => {
    for (const rule of (toSarif(sampleReport()) as Deep).runs[0].tool.driver.rules)
      expect(rule.help.text.length).toBeGreaterThan(20);
  });

  it("a reviewer's backslash path is made repository-relative with forward slashes; a path outside is refused", () => {
    const r = sampleReport();
    r.findings = [
      finding(2, 'correctness', { file: 'src\\wallet.js', line: 3 }),
      finding(2, 'correctness', { file: './lib//a b.js', line: 4, claim: 'x' }),
      finding(2, 'correctness', { file: '../etc/passwd', line: 1, claim: 'y' }),
      finding(2, 'correctness', { file: 'C:\\src\\a.js', line: 1, claim: 'z' }),
    ];
    const log = json(toSarif(r));
    expect(checkGithubSarif(log)).toEqual([]);
    const uris = log.runs[0].results.map((x: Deep) => x.locations[0].physicalLocation.artifactLocation.uri);
    expect(uris).toEqual(['lib/a%20b.js', 'src/wallet.js']);
    const notes = log.runs[0].invocations[0].toolExecutionNotifications;
    expect(notes.map((n: Deep) => n.level)).toEqual(['warning', 'warning']);
    expect(notes[0].message.text).toContain('"../etc/passwd"');
    expect(repositoryUri('/abs/a.js')).toBeNull();
    expect(repositoryUri('')).toBeNull();
  });

  it('two findings at different places never share a fingerprint; one that moves keeps its own', () => {
    const r = sampleReport();
    const same = { claim: 'console.log left in library code', file: 'lib/a.js' };
    r.findings = [
      finding(2, 'correctness', { ...same, line: 2 }),
      finding(2, 'correctness', { ...same, line: 6 }),
    ];
    const prints = (rep: typeof r) =>
      (toSarif(rep) as Deep).runs[0].results.map((x: Deep) => x.partialFingerprints['revloopFinding/v1']);
    const [a, b] = prints(r);
    expect(a).not.toBe(b);
    expect(checkGithubSarif(json(toSarif(r)))).toEqual([]);
    // Both move down three lines on the next push: same fingerprints.
    const moved = sampleReport();
    moved.findings = [
      finding(2, 'correctness', { ...same, line: 5 }),
      finding(2, 'correctness', { ...same, line: 9 }),
    ];
    expect(prints(moved)).toEqual([a, b]);
  });

  it('the category does not embed the change: a pull request and its base branch share it', () => {
    const pr = json(toSarif(sampleReport({ id: 'run-pr' }, { change: 'pr-42' })));
    const base = json(toSarif(sampleReport({ id: 'run-main' }, { change: 'main' })));
    expect(category(pr.runs[0])).toBe('revloop');
    expect(pr.runs[0].automationDetails.id).toBe('revloop/run-pr');
    expect(checkGithubSarif(pr, { alongside: [base] })).toEqual([]);
  });

  it('a run that did not complete exports an error notification and executionSuccessful false', () => {
    const log = json(toSarif(crashed()));
    const inv = log.runs[0].invocations[0];
    expect(inv.executionSuccessful).toBe(false);
    expect(inv.toolExecutionNotifications).toEqual([
      {
        level: 'error',
        message: {
          text: 'run run-0001 failed: reviewer_failed: reviewer standards: exited with code 1: boom',
        },
        descriptor: { id: 'revloop/run-incomplete' },
      },
      {
        level: 'error',
        message: { text: 'no verdict from standards in round 1 (failed: exited with code 1: boom)' },
        descriptor: { id: 'revloop/no-verdict' },
      },
    ]);
    expect(validateRtm5(log)).toBe(true);
  });

  it('a completed run says it is complete', () => {
    const inv = (toSarif(sampleReport()) as Deep).runs[0].invocations[0];
    expect(inv.executionSuccessful).toBe(true);
    expect(inv.toolExecutionNotifications).toBeUndefined();
  });
});
