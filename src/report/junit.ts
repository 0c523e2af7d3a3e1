/**
 * JUnit XML for CI test-report widgets: one testsuite per round, a failing
 * testcase per blocker, a skipped testcase per finding that does not block,
 * a passing testcase per reviewer that passed, and an erroring testcase when
 * the run did not complete (invariant 1: a missing result never reads green).
 */
import type { FindingRow } from '../core/ledger.js';
import { isBlocker, type RunReport } from '../core/run-report.js';
import { lineRange, sortFindings, verdictPhrase, whyNotBlocking } from './findings.js';

/** Escapes text and attribute values, and drops characters XML 1.0 forbids. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const attrs = (a: Record<string, string | number>): string =>
  Object.entries(a)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');

export function toJunit(report: RunReport): string {
  const run = report.run;
  const rounds = [
    ...new Set([...report.rounds.map((r) => r.round), ...report.findings.map((f) => f.round)]),
  ].sort((a, b) => a - b);
  const suites: { xml: string; tests: number; failures: number; errors: number; skipped: number }[] = [];
  for (const round of rounds) {
    const findings = sortFindings(report.findings.filter((f) => f.round === round));
    const cases: string[] = [];
    let failures = 0;
    let skipped = 0;
    for (const r of run.snapshot.reviewers) {
      const mine = findings.filter((f) => f.reviewer === r.name);
      if (!mine.some(isBlocker))
        cases.push(
          `    <testcase${attrs({ classname: `revloop.round${round}`, name: `${r.name}: no blocker` })}/>`,
        );
      for (const f of mine) {
        const c = testcase(round, f);
        cases.push(c.xml);
        if (c.kind === 'failure') failures++;
        else skipped++;
      }
    }
    // Findings of a reviewer not in the snapshot (should not happen) still show.
    for (const f of findings.filter((x) => !run.snapshot.reviewers.some((r) => r.name === x.reviewer))) {
      const c = testcase(round, f);
      cases.push(c.xml);
      if (c.kind === 'failure') failures++;
      else skipped++;
    }
    const head = report.rounds.find((r) => r.round === round)?.head ?? '';
    suites.push({
      tests: cases.length,
      failures,
      errors: 0,
      skipped,
      xml: `  <testsuite${attrs({ name: `revloop round ${round}${head ? ` (${head.slice(0, 7)})` : ''}`, tests: cases.length, failures, errors: 0, skipped })}>\n${cases.join('\n')}\n  </testsuite>`,
    });
  }
  if (run.status !== 'completed') {
    const msg = `run ${run.id} ${verdictPhrase(report)}`;
    suites.push({
      tests: 1,
      failures: 0,
      errors: 1,
      skipped: 0,
      xml: `  <testsuite${attrs({ name: 'revloop run', tests: 1, failures: 0, errors: 1, skipped: 0 })}>\n    <testcase${attrs({ classname: 'revloop', name: 'run completed' })}>\n      <error${attrs({ message: msg, type: run.reason ?? run.status })}>${xmlEscape(run.detail ?? msg)}</error>\n    </testcase>\n  </testsuite>`,
    });
  }
  const sum = (k: 'tests' | 'failures' | 'errors' | 'skipped') => suites.reduce((n, s) => n + s[k], 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({ name: `revloop ${run.id}`, tests: sum('tests'), failures: sum('failures'), errors: sum('errors'), skipped: sum('skipped') })}>\n${suites.map((s) => s.xml).join('\n')}\n</testsuites>\n`;
}

function testcase(round: number, f: FindingRow): { xml: string; kind: 'failure' | 'skipped' } {
  const name = `${f.severity} ${lineRange(f)}: ${f.reported.claim}`.slice(0, 300);
  const open = `    <testcase${attrs({ classname: `revloop.round${round}.${f.reviewer}`, name, file: f.reported.file, line: f.reported.line })}>`;
  if (isBlocker(f)) {
    const detail = [
      f.reported.claim,
      f.reported.failureScenario ? `Scenario: ${f.reported.failureScenario}` : '',
      f.reported.violatedClause ? `Violates: ${f.reported.violatedClause}` : '',
      `Finding ${f.id} at ${f.revision}`,
    ]
      .filter(Boolean)
      .join('\n');
    return {
      kind: 'failure',
      xml: `${open}\n      <failure${attrs({ message: f.reported.claim, type: f.severity })}>${xmlEscape(detail)}</failure>\n    </testcase>`,
    };
  }
  return {
    kind: 'skipped',
    xml: `${open}\n      <skipped${attrs({ message: whyNotBlocking(f) ?? 'not blocking' })}/>\n    </testcase>`,
  };
}
