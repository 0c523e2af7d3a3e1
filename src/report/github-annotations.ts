/**
 * GitHub Actions workflow commands (`::error file=..::msg`) for a run's final
 * findings. GitHub shows at most 10 error and 10 warning annotations per step
 * and 50 per job, so those caps are applied here and the rest is summarised
 * in one notice instead of silently vanishing.
 */
import type { FindingRow } from '../core/ledger.js';
import { isBlocker, type RunReport } from '../core/run-report.js';
import { finalFindings, lineRange, settleCommand, verdictPhrase, whyNotBlocking } from './findings.js';
import { missingPhrase, missingVerdicts } from './missing-verdicts.js';
import { inertMentions } from './neutralise.js';

export interface AnnotationLimits {
  error: number;
  warning: number;
  notice: number;
  /** Annotations this step may still add to the job. */
  total: number;
}

export const GITHUB_LIMITS: AnnotationLimits = { error: 10, warning: 10, notice: 10, total: 50 };

/** Escapes a command's message: %, CR, LF. */
export const escapeData = (s: string): string =>
  s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** Escapes a property value: as data, plus ':' and ','. */
export const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

type Level = 'error' | 'warning' | 'notice';

const levelOf = (f: FindingRow): Level =>
  isBlocker(f) ? (f.severity === 'MAJOR' ? 'error' : 'warning') : 'notice';

/** One workflow command per line; the last is a summary notice when anything was capped. */
export function toGithubAnnotations(report: RunReport, limits: AnnotationLimits = GITHUB_LIMITS): string {
  const lines: string[] = [];
  const left = { ...limits };
  let omitted = 0;
  // Invariant 18: a run that did not complete, and each call with no verdict, is an error
  // annotation, written first so that the caps below can never drop it.
  const run = report.run;
  const missing = [
    ...(run.status !== 'completed'
      ? [
          {
            title: 'revloop run did not complete',
            text: `run ${run.id} ${verdictPhrase(report)}${run.detail ? `: ${run.detail}` : ''}. The review is incomplete; this is not a pass.`,
          },
        ]
      : []),
    ...missingVerdicts(report).map((m) => ({ title: 'revloop no verdict', text: missingPhrase(m) })),
  ];
  for (const m of missing) {
    left.error--;
    left.total--;
    lines.push(`::error title=${escapeProperty(m.title)}::${escapeData(m.text)}`);
  }
  const findings = finalFindings(report);
  // Errors first, so the caps drop the least severe annotations.
  const ordered = (['error', 'warning', 'notice'] as const).flatMap((lvl) =>
    findings.filter((f) => levelOf(f) === lvl),
  );
  for (const f of ordered) {
    const lvl = levelOf(f);
    // Keep one slot of notices and of the total for the summary.
    const reserve = lvl === 'notice' ? 1 : 0;
    if (left[lvl] - reserve <= 0 || left.total - 1 <= 0) {
      omitted++;
      continue;
    }
    left[lvl]--;
    left.total--;
    const props = [
      `file=${escapeProperty(f.reported.file)}`,
      `line=${f.reported.line}`,
      ...(f.reported.endLine && f.reported.endLine >= f.reported.line
        ? [`endLine=${f.reported.endLine}`]
        : []),
      `title=${escapeProperty(`revloop ${f.severity} (${f.reviewer})`)}`,
    ];
    const why = whyNotBlocking(f);
    const msg = [
      f.reported.claim,
      f.reported.failureScenario ? `Scenario: ${f.reported.failureScenario}` : '',
      why && why !== 'MINOR' ? `Not blocking: ${why}` : '',
      settleCommand(f) ? `Needs a person: ${settleCommand(f)}` : '',
    ]
      .filter(Boolean)
      .join('\n');
    lines.push(`::${lvl} ${props.join(',')}::${escapeData(inertMentions(msg))}`);
  }
  if (omitted && left.notice > 0 && left.total > 0)
    lines.push(
      `::notice title=${escapeProperty('revloop')}::${escapeData(
        `${omitted} more finding(s) not annotated (GitHub caps annotations per step); run ${report.run.id} is ${verdictPhrase(report)}. See the job summary or SARIF.`,
      )}`,
    );
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** For the summary line of a finding outside annotations (used by tests and the terminal). */
export const annotationLocation = lineRange;
