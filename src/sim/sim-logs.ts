/**
 * Round logs of simulated runs, in the format `revloop export --format
 * rounds` writes: what `--fit` reads, so a fit can be checked against the
 * parameters that made the logs (the round trip).
 */
import type { SimParams } from './params.js';
import type { SimLogFinding } from './trial.js';
import { runTrial, TrialState } from './trial.js';

/** One simulated run's round log (the export's fields that `analyze` and `--fit` read). */
export interface SimRoundLog {
  runId: string;
  stopReason: string | null;
  stopWindow: number;
  shrinkRatio: number;
  rounds: {
    round: number;
    blocking: number;
    evidence: { progress: boolean; fixed: string[]; shrank: boolean } | null;
    decision: string;
    findings: SimLogFinding[];
  }[];
}

/**
 * The round logs of the configuration's first `runs` trials of `p` (the
 * live loop's stop: a run ends at the first stop decision, or at the horizon).
 */
export function simulateRoundLogs(p: SimParams, runs: number): SimRoundLog[] {
  const state = new TrialState(p, p.upgrades);
  const logs: SimRoundLog[] = [];
  for (let t = 0; t < runs; t++) {
    const log: SimRoundLog = {
      runId: `sim-${p.seed}-${t}`,
      stopReason: null,
      stopWindow: p.stopWindow,
      shrinkRatio: p.shrinkRatio,
      rounds: [],
    };
    runTrial(
      p,
      {
        upgrades: p.upgrades,
        onRound: (r) => {
          if (log.stopReason !== null) return; // the live run ended at its first stop
          const stop = r.decision.kind === 'stop' ? r.decision.stopReason : null;
          log.rounds.push({
            round: r.round,
            blocking: r.blocking,
            evidence: {
              progress: r.progress[r.progress.length - 1]!,
              fixed: r.evidence?.fixed ?? [],
              shrank: r.evidence?.shrank ?? false,
            },
            decision: stop ?? 'fix',
            findings: r.findings(),
          });
          log.stopReason = stop;
        },
      },
      t,
      state,
    );
    logs.push(log);
  }
  return logs;
}
