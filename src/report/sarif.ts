/**
 * SARIF 2.1.0 for code-scanning uploads, shaped by GitHub's published rules
 * ("SARIF support for code scanning"; checked by test/report/github-sarif-rules.ts)
 * as well as the OASIS schema. One result per finding of the final round
 * (what the head still carries); rule ids are stable per effective severity
 * and every rule has `help.text`; paths are repository-relative with forward
 * slashes; partialFingerprints stay equal across runs and pushes but never
 * collide between two places in one log; the category (`automationDetails.id`
 * up to its last `/`) is the same for every run, so a pull request's analysis
 * and its base branch's compare. A run that did not complete, or a reviewer
 * call with no verdict, is an invocation with `executionSuccessful: false`
 * and a tool execution notification at level error (SARIF 2.1.0, Appendix I:
 * how a consumer tells an incomplete result set), never an empty list that
 * looks like a clean scan. Refuted and overturned findings are kept as
 * suppressed results, demoted ones as notes with the demotion in properties.
 */
import type { FindingRow } from '../core/ledger.js';
import { notBlockingBecause, type RunReport } from '../core/run-report.js';
import type { Severity } from '../core/types.js';
import { finalFindings, fingerprint, SEVERITY_ORDER, sortFindings, verdictPhrase } from './findings.js';
import { missingPhrase, missingVerdicts } from './missing-verdicts.js';
import { inertMentions } from './neutralise.js';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

/** The analysis category: constant, so every run of every change lands in one category. */
export const SARIF_CATEGORY = 'revloop';

const HOW =
  'revloop runs the configured AI reviewers on the change; a MAJOR or MODERATE finding blocks only when it names a concrete failure scenario or a violated criteria clause and survives a fresh-context refuter. Fix the code, or have a person settle the finding with `revloop settle FINDING --by NAME --decision upheld|overturned`.';

const RULES: Record<Severity, { id: string; level: 'error' | 'warning' | 'note'; text: string }> = {
  MAJOR: {
    id: 'revloop/major',
    level: 'error',
    text: 'A MAJOR finding: a concrete failure or a violated criteria clause.',
  },
  MODERATE: {
    id: 'revloop/moderate',
    level: 'warning',
    text: 'A MODERATE finding that blocks until fixed, refuted or settled.',
  },
  MINOR: { id: 'revloop/minor', level: 'note', text: 'A MINOR finding: reported, never blocking.' },
};

/** Descriptors of the notifications revloop reports about its own run. */
const NOTIFICATIONS = {
  incomplete: {
    id: 'revloop/run-incomplete',
    text: 'The review run did not complete: its results are not a full review of the change.',
  },
  noVerdict: {
    id: 'revloop/no-verdict',
    text: 'A reviewer call returned no verdict (crashed, refused, timed out, or never called).',
  },
  badPath: {
    id: 'revloop/path-outside-repository',
    text: 'A finding named a path that is not a file path inside the repository; it is not emitted as a result.',
  },
} as const;

export interface SarifOptions {
  /** Include findings of every round, not only the last (each keeps its revision in properties). */
  allRounds?: boolean;
}

/** The SARIF log of a run as a plain object (JSON.stringify it to write). */
export function toSarif(report: RunReport, opts: SarifOptions = {}): Record<string, unknown> {
  const run = report.run;
  const findings = opts.allRounds ? sortFindings(report.findings) : finalFindings(report);
  const notifications: Record<string, unknown>[] = [];
  const notify = (kind: keyof typeof NOTIFICATIONS, text: string) =>
    notifications.push({ level: 'error', message: { text }, descriptor: { id: NOTIFICATIONS[kind].id } });
  if (run.status !== 'completed')
    notify('incomplete', `run ${run.id} ${verdictPhrase(report)}${run.detail ? `: ${run.detail}` : ''}`);
  for (const m of missingVerdicts(report)) notify('noVerdict', missingPhrase(m));

  const located: { f: FindingRow; uri: string }[] = [];
  for (const f of findings) {
    const uri = repositoryUri(f.reported.file);
    if (uri) located.push({ f, uri });
    else
      notifications.push({
        level: 'warning',
        message: { text: `finding ${f.id} (${f.reviewer}) names ${JSON.stringify(f.reported.file)}` },
        descriptor: { id: NOTIFICATIONS.badPath.id },
      });
  }
  const occurrence = occurrences(located.map((x) => x.f));
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'revloop',
            semanticVersion: run.snapshot.controllerVersion.replace(/^revloop\//, ''),
            informationUri: 'https://revloop.dev/',
            rules: SEVERITY_ORDER.map((s) => ({
              id: RULES[s].id,
              name: `revloop${s[0]}${s.slice(1).toLowerCase()}Finding`,
              shortDescription: { text: `${s} review finding` },
              fullDescription: { text: RULES[s].text },
              help: { text: `${RULES[s].text} ${HOW}` },
              defaultConfiguration: { level: RULES[s].level },
            })),
            notifications: Object.values(NOTIFICATIONS).map((n) => ({
              id: n.id,
              shortDescription: { text: n.text },
              fullDescription: { text: n.text },
              help: { text: n.text },
            })),
          },
        },
        automationDetails: { id: `${SARIF_CATEGORY}/${run.id}` },
        invocations: [
          {
            executionSuccessful:
              run.status === 'completed' && notifications.every((n) => n.level !== 'error'),
            ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
            ...(run.endedAt !== null ? { endTimeUtc: new Date(run.endedAt).toISOString() } : {}),
            startTimeUtc: new Date(run.createdAt).toISOString(),
          },
        ],
        originalUriBaseIds: { SRCROOT: { description: { text: 'The repository root.' } } },
        results: located.map(({ f, uri }, i) => result(f, uri, occurrence[i] ?? 1)),
        properties: {
          runId: run.id,
          change: run.snapshot.change,
          status: run.status,
          outcome: run.outcome,
          stopReason: run.stopReason,
          reason: run.reason,
          head: run.head,
          base: run.snapshot.base,
          criteriaDigest: run.snapshot.criteriaDigest,
        },
      },
    ],
  };
}

/**
 * A reviewer's path as a repository-relative URI reference: backslashes are
 * separators (a reviewer on Windows writes `src\wallet.js`), `./` and empty
 * segments go, each segment is percent-encoded. Null when the path is not a
 * file inside the repository (absolute, a drive letter, `..`, empty).
 */
export function repositoryUri(file: string): string | null {
  const segments = file
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (!segments.length || /^[A-Za-z]:/.test(file) || /^[\\/]/.test(file) || segments.includes('..'))
    return null;
  return segments.map(encodeURIComponent).join('/');
}

/**
 * The n-th time a fingerprint occurs among the results, in line order, as
 * GitHub's own line hashes count repeats (`hash:n`): two places never share a
 * fingerprint, and one that moves with its lines keeps it.
 */
function occurrences(findings: FindingRow[]): number[] {
  const order = findings.map((f, i) => ({ f, i })).sort((a, b) => a.f.reported.line - b.f.reported.line);
  const seen = new Map<string, number>();
  const out: number[] = [];
  for (const { f, i } of order) {
    const key = `${f.round}\u0000${fingerprint(f)}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    out[i] = n;
  }
  return out;
}

function result(f: FindingRow, uri: string, occurrence: number): Record<string, unknown> {
  const rule = RULES[f.severity];
  const because = notBlockingBecause(f);
  const text = inertMentions(
    [f.reported.claim, f.reported.failureScenario && `Scenario: ${f.reported.failureScenario}`]
      .concat(f.reported.violatedClause ? [`Violates: ${f.reported.violatedClause}`] : [])
      .filter(Boolean)
      .join('\n'),
  );
  const suppression =
    because === 'refuted'
      ? {
          kind: 'external',
          status: 'accepted',
          justification: inertMentions(`refuted by ${f.refutation?.by}: ${f.refutation?.reason}`),
        }
      : because === 'overturned'
        ? {
            kind: 'external',
            status: 'accepted',
            justification: inertMentions(
              `overturned by ${f.settlement?.by}${f.settlement?.note ? `: ${f.settlement.note}` : ''}`,
            ),
          }
        : null;
  const endLine =
    f.reported.endLine && f.reported.endLine >= f.reported.line ? f.reported.endLine : f.reported.line;
  return {
    ruleId: rule.id,
    ruleIndex: SEVERITY_ORDER.indexOf(f.severity),
    level: rule.level,
    message: { text },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri, uriBaseId: 'SRCROOT' },
          // Whole lines: a reviewer names lines, not columns; without endColumn the region runs to the end of endLine (SARIF 3.30.8).
          region: { startLine: f.reported.line, startColumn: 1, endLine },
        },
      },
    ],
    partialFingerprints: { 'revloopFinding/v1': `${fingerprint(f)}:${occurrence}` },
    ...(suppression ? { suppressions: [suppression] } : {}),
    properties: {
      findingId: f.id,
      reviewer: f.reviewer,
      round: f.round,
      revision: f.revision,
      reportedSeverity: f.reported.severity,
      blocking: because === null,
      notBlockingBecause: because,
      ...(f.gate.kind === 'demoted' ? { demotion: f.gate } : {}),
      ...(f.refutation ? { refutation: f.refutation } : {}),
      ...(f.dispute ? { dispute: f.dispute } : {}),
      ...(f.settlement ? { settlement: f.settlement } : {}),
    },
  };
}
