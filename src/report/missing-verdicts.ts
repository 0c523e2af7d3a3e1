/**
 * Invariant 18 for every report format: which reviewer calls of a reviewed
 * round have no verdict. A reviewer with no findings and no verdict did not
 * pass; each format must show it as a missing result, never as a clean one.
 * Read from the ledger's attempts and verdicts, not from the findings: a
 * crashed, refused or never-started call leaves no finding behind.
 */
import type { AttemptClass } from '../core/ledger.js';
import type { RunReport } from '../core/run-report.js';

export interface MissingVerdict {
  round: number;
  reviewer: string;
  /** How its last attempt ended; `not_called` when the run ended before the call began. */
  class: AttemptClass | 'not_called';
  /** The last attempt's own words (may span lines), else null. */
  detail: string | null;
}

/** Every (round, reviewer) of a reviewed round that lacks a verdict for one of its review calls, in round and configured order. */
export function missingVerdicts(
  report: Pick<RunReport, 'run' | 'rounds' | 'verdicts' | 'attempts'>,
): MissingVerdict[] {
  const answered = new Set(report.verdicts.filter((v) => v.stage === 'review').map((v) => v.callKey));
  const out: MissingVerdict[] = [];
  const rounds = [...new Set(report.rounds.map((r) => r.round))].filter((r) => r >= 1).sort((a, b) => a - b);
  for (const round of rounds)
    for (const { name } of report.run.snapshot.reviewers) {
      const attempts = report.attempts
        .filter((a) => a.round === round && a.stage === 'review' && a.reviewer === name)
        .sort((a, b) => a.startedAt - b.startedAt || a.attemptNo - b.attemptNo);
      const hasVerdict = report.verdicts.some(
        (v) => v.round === round && v.stage === 'review' && v.reviewer === name,
      );
      // A chunked review makes several calls: every one of them needs its verdict.
      const unanswered = attempts.filter((a) => !answered.has(a.callKey));
      if (hasVerdict && unanswered.length === 0) continue;
      const last = unanswered.at(-1) ?? attempts.at(-1);
      out.push({
        round,
        reviewer: name,
        class: last ? (last.class === 'ok' ? 'unknown' : last.class) : 'not_called',
        detail: last?.detail ?? null,
      });
    }
  return out;
}

/** One line for a missing verdict, e.g. `no verdict from second in round 1 (failed: exited with code 1)`. */
export function missingPhrase(m: MissingVerdict): string {
  const why =
    m.class === 'not_called'
      ? 'never called: the run ended first'
      : m.class === 'started'
        ? 'the call never finished'
        : m.class;
  const detail = m.detail ? `: ${m.detail.split(/\r?\n|\r/, 1)[0]}` : '';
  return `no verdict from ${m.reviewer} in round ${m.round} (${why}${detail})`;
}
