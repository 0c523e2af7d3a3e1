/**
 * How many of a run's verdicts were reused from identical calls answered
 * earlier, and from where: the record states it, the PR review and the
 * reports say it in one line, and `verify --no-reuse` refuses a record that
 * holds any. Pure: it reads recorded verdicts only.
 */
import type { ReusedFrom } from './stage-results.js';
import type { Role } from './types.js';

export interface ReuseSummary {
  /** Per role that took part (reviewer, refuter): its verdicts in the run and how many were reused. */
  roles: { role: Role; verdicts: number; reused: number }[];
  /** Each reused verdict: its own call key and the call first answered. */
  from: { callKey: string; reusedFrom: ReusedFrom }[];
}

interface Recorded {
  callKey: string;
  role: Role;
  reusedFrom?: ReusedFrom | undefined;
}

/** The summary of a run's verdicts, or null when none was reused (a record without reuse keeps its shape). */
export function reuseSummary(verdicts: readonly Recorded[]): ReuseSummary | null {
  const from = verdicts.flatMap((v) =>
    v.reusedFrom ? [{ callKey: v.callKey, reusedFrom: v.reusedFrom }] : [],
  );
  if (from.length === 0) return null;
  const roles: ReuseSummary['roles'] = [];
  for (const role of ['reviewer', 'refuter'] as const) {
    const mine = verdicts.filter((v) => v.role === role);
    const reused = mine.filter((v) => v.reusedFrom).length;
    if (reused > 0) roles.push({ role, verdicts: mine.length, reused });
  }
  return { roles, from };
}

/**
 * One line, e.g. "29 of 30 reviewer verdicts reused from run R at revision
 * abc1234 (identical calls answered there)"; several sources are counted.
 */
export function reuseLine(s: ReuseSummary): string {
  const counts = s.roles.map(
    (r) => `${r.reused} of ${r.verdicts} ${r.role} verdict${r.verdicts === 1 ? '' : 's'}`,
  );
  const sources = new Map<string, ReusedFrom>();
  for (const f of s.from) sources.set(`${f.reusedFrom.runId}@${f.reusedFrom.revision}`, f.reusedFrom);
  const [only] = sources.values();
  const where =
    sources.size === 1 && only
      ? `from run ${only.runId} at revision ${only.revision.slice(0, 7)}`
      : `from ${sources.size} earlier runs or revisions`;
  return `${counts.join(', ')} reused ${where} (identical calls, not asked again)`;
}
