/** Reads everything the ledger holds about one run into a RunReport. */
import type { RunReport } from '../core/run-report.js';
import type { Store } from '../ports/store.js';

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
