/**
 * SARIF 2.1.0 for code-scanning uploads. One result per finding of the final
 * round (what the head still carries); rule ids are stable per effective
 * severity; partialFingerprints stay equal across runs so a scanner can track
 * a finding through pushes. Refuted and overturned findings are kept as
 * suppressed results, demoted ones as notes with the demotion in properties.
 */
import type { FindingRow } from '../core/ledger.js';
import { notBlockingBecause, type RunReport } from '../core/run-report.js';
import type { Severity } from '../core/types.js';
import { finalFindings, fingerprint, SEVERITY_ORDER, sortFindings } from './findings.js';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

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

export interface SarifOptions {
  /** Include findings of every round, not only the last (each keeps its revision in properties). */
  allRounds?: boolean;
}

/** The SARIF log of a run as a plain object (JSON.stringify it to write). */
export function toSarif(report: RunReport, opts: SarifOptions = {}): Record<string, unknown> {
  const run = report.run;
  const findings = opts.allRounds ? sortFindings(report.findings) : finalFindings(report);
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'revloop',
            semanticVersion: run.snapshot.controllerVersion,
            informationUri: 'https://revloop.dev/',
            rules: SEVERITY_ORDER.map((s) => ({
              id: RULES[s].id,
              name: `revloop${s[0]}${s.slice(1).toLowerCase()}Finding`,
              shortDescription: { text: `${s} review finding` },
              fullDescription: { text: RULES[s].text },
              defaultConfiguration: { level: RULES[s].level },
            })),
          },
        },
        automationDetails: { id: `revloop/${run.snapshot.change}/${run.id}` },
        invocations: [
          {
            executionSuccessful: run.status === 'completed',
            ...(run.endedAt !== null ? { endTimeUtc: new Date(run.endedAt).toISOString() } : {}),
            startTimeUtc: new Date(run.createdAt).toISOString(),
          },
        ],
        originalUriBaseIds: { SRCROOT: { description: { text: 'The repository root.' } } },
        results: findings.map(result),
        properties: {
          runId: run.id,
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

function result(f: FindingRow): Record<string, unknown> {
  const rule = RULES[f.severity];
  const because = notBlockingBecause(f);
  const text = [f.reported.claim, f.reported.failureScenario && `Scenario: ${f.reported.failureScenario}`]
    .concat(f.reported.violatedClause ? [`Violates: ${f.reported.violatedClause}`] : [])
    .filter(Boolean)
    .join('\n');
  const suppression =
    because === 'refuted'
      ? {
          kind: 'external',
          status: 'accepted',
          justification: `refuted by ${f.refutation?.by}: ${f.refutation?.reason}`,
        }
      : because === 'overturned'
        ? {
            kind: 'external',
            status: 'accepted',
            justification: `overturned by ${f.settlement?.by}${f.settlement?.note ? `: ${f.settlement.note}` : ''}`,
          }
        : null;
  return {
    ruleId: rule.id,
    ruleIndex: SEVERITY_ORDER.indexOf(f.severity),
    level: rule.level,
    message: { text },
    locations: [
      {
        physicalLocation: {
          artifactLocation: {
            uri: f.reported.file.split('/').map(encodeURIComponent).join('/'),
            uriBaseId: 'SRCROOT',
          },
          region: {
            startLine: f.reported.line,
            ...(f.reported.endLine && f.reported.endLine >= f.reported.line
              ? { endLine: f.reported.endLine }
              : {}),
          },
        },
      },
    ],
    partialFingerprints: { 'revloopFinding/v1': fingerprint(f) },
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
