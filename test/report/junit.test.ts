/**
 * JUnit by its consumers' rules (issue 15, point 9): the file validates with
 * `xmllint --schema` against the Jenkins xUnit plugin's junit-10.xsd, a
 * reviewer that returned no verdict is an erroring case (invariants 1, 18),
 * names are unique per classname (GitLab keeps one of a duplicate), and
 * what a parser reads back keeps its line breaks.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toJunit, xmlEscape } from '../../src/report/junit.js';
import { attempt, crashedReviewerReport, finding, sampleReport } from './fixtures.js';

const XSD = new URL('../fixtures/junit/junit-10.xsd', import.meta.url).pathname;
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'revloop-junit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(xml: string): string {
  const p = join(dir, `${++n}.xml`);
  writeFileSync(p, xml);
  return p;
}

/** `xmllint --noout --schema junit-10.xsd`: the consumer's own validator. */
function validate(xml: string): { ok: boolean; errors: string } {
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD, file(xml)], { encoding: 'utf8' });
  return { ok: r.status === 0, errors: r.stderr };
}

/** What an XML parser reads back (libxml2, through xmllint's XPath). */
const xpath = (xml: string, expr: string): string =>
  execFileSync('xmllint', ['--xpath', expr, file(xml)], { encoding: 'utf8' }).replace(/\n$/, ''); // xmllint ends with a newline

const crashedReviewer = crashedReviewerReport;

it('xmllint is installed where CI runs (.ci/run installs libxml2-utils)', () => {
  if (process.env.CI) expect(hasXmllint).toBe(true);
});

describe.skipIf(!hasXmllint)('toJunit against junit-10.xsd (xmllint --schema)', () => {
  it.each([
    ['a completed run with every kind of finding', () => sampleReport()],
    ['a run with a reviewer that crashed', crashedReviewer],
    [
      'a run that timed out',
      () => sampleReport({ status: 'timed_out', outcome: null, reason: 'budget_wall' }),
    ],
  ])('%s validates', (_n, make) => {
    const res = validate(toJunit(make()));
    expect(res.errors).toMatch(/validates$/m);
    expect(res.ok).toBe(true);
  });

  it('the schema does refuse what other readers accept (file/line on a testcase, skipped on testsuites)', () => {
    const ok =
      '<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t"/></testsuite></testsuites>';
    expect(validate(ok).ok).toBe(true);
    expect(validate(ok.replace('<testcase ', '<testcase file="a.ts" line="3" ')).ok).toBe(false);
    expect(validate(ok.replace('<testsuites>', '<testsuites skipped="0">')).ok).toBe(false);
  });

  it('messages keep their line breaks when a parser reads them back', () => {
    const r = sampleReport();
    r.findings = [finding(2, 'correctness', { claim: 'first line\nsecond\tline\r\nthird', line: 4 })];
    const xml = toJunit(r);
    expect(validate(xml).ok).toBe(true);
    expect(xpath(xml, 'string(//failure/@message)')).toBe('first line\nsecond\tline\r\nthird');
    expect(xpath(xml, 'string(//failure)')).toMatch(/^first line\nsecond\tline\r\nthird\nScenario: /);
  });
});

describe('toJunit: a missing result is never a passing case (invariants 1, 18)', () => {
  it('a reviewer that crashed is an erroring case, not "no blocker"', () => {
    const xml = toJunit(crashedReviewer());
    expect(xml).toContain(
      '<testcase classname="revloop.round1.correctness" name="correctness: no blocker"/>',
    );
    expect(xml).not.toContain('standards: no blocker');
    expect(xml).toMatch(
      /<testcase classname="revloop.round1.standards" name="standards: no verdict">\n\s+<error type="failed" message="no verdict from standards in round 1 \(failed: exited with code 1: boom\)">exited with code 1: boom\nat line 2<\/error>/,
    );
    expect(xml).toMatch(/<testsuites name="revloop run-0001" tests="3" failures="0" errors="2">/);
  });

  it('a reviewer the run never reached, or whose call never finished, errors too', () => {
    const r = crashedReviewer();
    r.attempts = [attempt(1, 'correctness')];
    expect(toJunit(r)).toContain(
      'message="no verdict from standards in round 1 (never called: the run ended first)"',
    );
    r.attempts.push(attempt(1, 'standards', { class: 'started', endedAt: null }));
    expect(toJunit(r)).toContain(
      '<error type="started" message="no verdict from standards in round 1 (the call never finished)"',
    );
  });

  it('a chunked review with one chunk unanswered is a missing result', () => {
    const r = sampleReport();
    r.attempts.push(attempt(2, 'standards', { callKey: 'call-2-standards-chunk-2', class: 'timeout' }));
    const xml = toJunit(r);
    expect(xml).toContain('name="standards: no verdict"');
    expect(xml).toMatch(/errors="1"/);
  });
});

describe('toJunit: names and counts', () => {
  it('has a suite per round and a failing testcase per blocker, escaped, with no attribute the schema lacks', () => {
    const xml = toJunit(sampleReport());
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml).toMatch(/<testsuites name="revloop run-0001" tests="\d+" failures="3" errors="0">/);
    expect(xml.match(/<failure /g)).toHaveLength(3);
    expect(xml).toContain('SQL injection &lt;script&gt;&amp;');
    expect(xml).not.toContain('<script>');
    expect(xml).toContain('<skipped message="refuted by refuter: cache is per-request"/>');
    expect(xml).not.toMatch(/<testcase[^>]* (file|line)=/);
    // The location is in the name and the body instead.
    expect(xml).toContain('name="MAJOR src/a.ts:10-12: Lost update: counter is read, then written"');
  });

  it('names are unique per classname (GitLab shows one of a duplicate)', () => {
    const r = sampleReport();
    const same = { claim: 'lost update', line: 10 };
    r.findings = [
      finding(2, 'correctness', same),
      finding(2, 'correctness', same),
      finding(2, 'correctness', same),
    ];
    const names = [...toJunit(r).matchAll(/<testcase classname="([^"]+)" name="([^"]+)"/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('revloop.round2.correctness MAJOR src/a.ts:10: lost update (3)');
  });

  it('reports a run that did not complete as an error', () => {
    const xml = toJunit(
      sampleReport({ status: 'timed_out', outcome: null, stopReason: null, reason: 'budget_wall' }),
    );
    expect(xml).toContain('<error type="budget_wall" message="run run-0001 timed_out: budget_wall">');
    expect(xml).toMatch(/errors="1"/);
  });
});

it('drops characters XML cannot carry', () => {
  expect(xmlEscape('a\u0000b\u001bc"\'')).toBe('abc&quot;&apos;');
});
