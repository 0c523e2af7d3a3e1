/**
 * reviewdog's rdjson (the Reviewdog Diagnostic Format's DiagnosticResult),
 * so reviewdog can post revloop's findings to any forge it supports. One
 * diagnostic per finding of the final round that a reader should see:
 * blockers as ERROR (MAJOR) or WARNING (MODERATE), MINOR and demoted ones
 * as INFO; refuted and overturned ones are left out (the format has no
 * suppression). Reviewer text is neutralised. Invariant 18: a run that did
 * not complete carries an ERROR diagnostic saying so, and no severity of
 * the result is lower than ERROR then.
 */
import type { FindingRow } from '../core/ledger.js';
import { notBlockingBecause, type RunReport } from '../core/run-report.js';
import type { Severity } from '../core/types.js';
import { finalFindings, verdictPhrase, whyNotBlocking } from './findings.js';
import { neutralise } from './neutralise.js';

type RdSeverity = 'ERROR' | 'WARNING' | 'INFO';

const SEVERITY: Record<Severity, RdSeverity> = { MAJOR: 'ERROR', MODERATE: 'WARNING', MINOR: 'INFO' };

interface RdDiagnostic {
  message: string;
  location: { path: string; range?: { start: { line: number }; end: { line: number } } };
  severity: RdSeverity;
  source: { name: string };
  code: { value: string };
}

function diagnostic(f: FindingRow): RdDiagnostic | null {
  const because = notBlockingBecause(f);
  if (because === 'refuted' || because === 'overturned') return null;
  const parts = [`[${f.severity}] ${neutralise(f.reported.claim)}`];
  if (f.reported.failureScenario) parts.push(`Scenario: ${neutralise(f.reported.failureScenario)}`);
  if (f.reported.violatedClause) parts.push(`Violates: ${neutralise(f.reported.violatedClause, 500)}`);
  if (because === 'demoted') parts.push(`(${whyNotBlocking(f)})`);
  return {
    message: parts.join('\n'),
    location: {
      path: f.reported.file,
      range: {
        start: { line: f.reported.line },
        end: { line: Math.max(f.reported.line, f.reported.endLine ?? f.reported.line) },
      },
    },
    severity: because === null ? SEVERITY[f.severity] : 'INFO',
    source: { name: `revloop/${f.reviewer}` },
    code: { value: `revloop/${f.severity.toLowerCase()}` },
  };
}

export function toRdjson(report: RunReport): Record<string, unknown> {
  const run = report.run;
  const diagnostics = finalFindings(report).flatMap((f) => diagnostic(f) ?? []);
  if (run.status !== 'completed')
    diagnostics.unshift({
      message: `revloop run ${run.id} did not complete (${verdictPhrase(report)}): its findings are not a review, and no missing result is a pass`,
      location: { path: run.snapshot.configPath },
      severity: 'ERROR',
      source: { name: 'revloop' },
      code: { value: 'revloop/not-completed' },
    });
  return {
    source: { name: 'revloop', url: 'https://revloop.dev/' },
    ...(run.status !== 'completed' ? { severity: 'ERROR' } : {}),
    diagnostics,
  };
}
