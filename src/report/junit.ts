/**
 * JUnit XML for CI test-report widgets: one testsuite per round, a failing
 * testcase per blocker, a skipped testcase per finding that does not block,
 * a passing testcase per reviewer that returned a verdict without a blocker,
 * an erroring testcase per reviewer call with no verdict, and an erroring
 * testcase when the run did not complete (invariants 1 and 18: a missing
 * result never reads green).
 *
 * Shaped by its strictest reader, the Jenkins xUnit plugin's junit-10.xsd
 * (test/fixtures/junit): no attribute it does not list (so the location is in
 * the name and the body, not in `file`/`line`), no `skipped` on
 * `<testsuites>`. GitLab shows one of several cases with the same classname
 * and name, so names are made unique. Line breaks in attribute values are
 * written as character references: a parser turns a literal one into a space.
 */
import type { FindingRow } from '../core/ledger.js';
import { isBlocker, type RunReport } from '../core/run-report.js';
import { lineRange, sortFindings, verdictPhrase, whyNotBlocking } from './findings.js';
import { type MissingVerdict, missingPhrase, missingVerdicts } from './missing-verdicts.js';
import { inertMentions } from './neutralise.js';

/** Drops characters XML 1.0 cannot carry at all. */
const xmlChars = (s: string): string =>
  s.replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');

/** Escapes element text, and drops characters XML 1.0 forbids; a CR is kept as a reference (parsers fold CRLF). */
export function xmlEscape(s: string): string {
  return xmlChars(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;');
}

/** Escapes an attribute value; tabs and line breaks as references, so attribute normalisation keeps them. */
export const xmlAttr = (s: string): string => xmlEscape(s).replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');

const attrs = (a: Record<string, string | number>): string =>
  Object.entries(a)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');

type Kind = 'pass' | 'failure' | 'error' | 'skipped';

interface Case {
  classname: string;
  name: string;
  kind: Kind;
  /** The child element's attributes and text (none for a passing case). */
  type?: string;
  message?: string;
  text?: string;
}

export function toJunit(report: RunReport): string {
  const run = report.run;
  const missing = missingVerdicts(report);
  const rounds = [
    ...new Set([...report.rounds.map((r) => r.round), ...report.findings.map((f) => f.round)]),
  ].sort((a, b) => a - b);
  const names = uniqueNames();
  const suites: string[] = [];
  const total = { tests: 0, failures: 0, errors: 0 };
  const suite = (name: string, cases: Case[]) => {
    const count = (k: Kind) => cases.filter((c) => c.kind === k).length;
    const c = { tests: cases.length, failures: count('failure'), errors: count('error') };
    total.tests += c.tests;
    total.failures += c.failures;
    total.errors += c.errors;
    const body = cases.map((x) => render({ ...x, name: names(x.classname, x.name) })).join('\n');
    suites.push(`  <testsuite${attrs({ name, ...c, skipped: count('skipped') })}>\n${body}\n  </testsuite>`);
  };

  for (const round of rounds) {
    const findings = sortFindings(report.findings.filter((f) => f.round === round));
    const cases: Case[] = [];
    const known = new Set(run.snapshot.reviewers.map((r) => r.name));
    for (const { name } of run.snapshot.reviewers) {
      const classname = `revloop.round${round}.${name}`;
      const mine = findings.filter((f) => f.reviewer === name);
      const gap = missing.find((m) => m.round === round && m.reviewer === name);
      if (gap) cases.push(noVerdictCase(classname, gap));
      else if (!mine.some(isBlocker)) cases.push({ classname, name: `${name}: no blocker`, kind: 'pass' });
      cases.push(...mine.map(findingCase));
    }
    // The controller's own findings (protected paths, reviewer `revloop`) and any other name still show.
    cases.push(...findings.filter((f) => !known.has(f.reviewer)).map(findingCase));
    const head = report.rounds.find((r) => r.round === round)?.head ?? '';
    suite(`revloop round ${round}${head ? ` (${head.slice(0, 7)})` : ''}`, cases);
  }
  if (run.status !== 'completed') {
    const msg = `run ${run.id} ${verdictPhrase(report)}`;
    suite('revloop run', [
      {
        classname: 'revloop.run',
        name: 'run completed',
        kind: 'error',
        type: run.reason ?? run.status,
        message: msg,
        text: run.detail ?? msg,
      },
    ]);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({ name: `revloop ${run.id}`, ...total })}>\n${suites.join('\n')}\n</testsuites>\n`;
}

/** A case as XML; what a reviewer wrote (name, message, text) with its mentions inert, as report pages render it. */
function render(c: Case): string {
  const open = `    <testcase${attrs({ classname: c.classname, name: inertMentions(c.name) })}`;
  if (c.kind === 'pass') return `${open}/>`;
  const message = inertMentions(c.message ?? '');
  const child = `<${c.kind}${attrs({ ...(c.type ? { type: c.type } : {}), message })}`;
  return `${open}>\n      ${c.text ? `${child}>${xmlEscape(inertMentions(c.text))}</${c.kind}>` : `${child}/>`}\n    </testcase>`;
}

function noVerdictCase(classname: string, m: MissingVerdict): Case {
  return {
    classname,
    name: `${m.reviewer}: no verdict`,
    kind: 'error',
    type: m.class,
    message: missingPhrase(m),
    text: m.detail ?? missingPhrase(m),
  };
}

function findingCase(f: FindingRow): Case {
  const classname = `revloop.round${f.round}.${f.reviewer}`;
  const name = `${f.severity} ${lineRange(f)}: ${f.reported.claim.replace(/\s+/g, ' ')}`.slice(0, 300);
  if (!isBlocker(f))
    return { classname, name, kind: 'skipped', message: whyNotBlocking(f) ?? 'not blocking' };
  const text = [
    f.reported.claim,
    f.reported.failureScenario ? `Scenario: ${f.reported.failureScenario}` : '',
    f.reported.violatedClause ? `Violates: ${f.reported.violatedClause}` : '',
    `At ${lineRange(f)}, finding ${f.id} at ${f.revision}`,
  ]
    .filter(Boolean)
    .join('\n');
  return { classname, name, kind: 'failure', type: f.severity, message: f.reported.claim, text };
}

/** A name that no earlier case of the same classname has: ` (2)`, ` (3)`, … on a repeat. */
function uniqueNames(): (classname: string, name: string) => string {
  const seen = new Set<string>();
  return (classname, name) => {
    let out = name;
    for (let n = 2; seen.has(`${classname}\u0000${out}`); n++) out = `${name} (${n})`;
    seen.add(`${classname}\u0000${out}`);
    return out;
  };
}
