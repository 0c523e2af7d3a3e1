/** Reads everything the ledger holds about one run into a RunReport. */
import type { RunReport } from '../../core/run-report.js';
import type { Store } from '../../ports/store.js';
import { redactDeep, secretValues } from '../../reviewers/redact.js';

export async function loadRunReport(store: Store, runId: string): Promise<RunReport | null> {
  const run = await store.getRun(runId);
  if (!run) return null;
  const [rounds, stages, findings, verdicts, attempts] = await Promise.all([
    store.listRounds(runId),
    store.listStages(runId),
    store.listFindings(runId),
    store.listVerdicts(runId),
    store.listAttempts(runId),
  ]);
  return { run, rounds, stages, findings, verdicts, attempts };
}

/**
 * A run's report as it may leave the process (an export, a summary, a
 * publication, the dashboard, the signed record): every string redacted with
 * the secrets of the job that prints it. Replies were redacted before they
 * were recorded; this pass also covers a ledger written before that, or by a
 * job that did not know the secret this one holds.
 */
export async function loadOutputReport(
  store: Store,
  runId: string,
  env: NodeJS.ProcessEnv,
): Promise<RunReport | null> {
  const report = await loadRunReport(store, runId);
  return report && redactDeep(report, secretValues(env));
}
