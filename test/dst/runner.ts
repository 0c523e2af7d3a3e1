/**
 * Runs schedules one after another and reports: a count, the outcomes seen,
 * and for every failing schedule its seed, the step and the invariant that
 * broke, and the steps that led there (never a bare stack trace).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LoopDeps } from '../../src/loop/deps.js';
import { runSchedule, type ScheduleResult } from './schedule.js';

export interface RunOptions {
  seed: number;
  schedules: number;
  /** A scratch directory (tmpfs when there is one: records are fsynced). */
  scratch: string;
  mutate?: ((deps: LoopDeps) => LoopDeps) | undefined;
  onProgress?: ((done: number, failed: number) => void) | undefined;
  /** Told of each failing schedule as soon as it is judged. */
  onFailure?: ((r: ScheduleResult) => void) | undefined;
  /** Told of every schedule once it is judged (its digest, for the determinism check). */
  onSchedule?: ((r: ScheduleResult) => void) | undefined;
  /** Stop after this many failing schedules. */
  maxFailures?: number | undefined;
}

export interface RunSummary {
  schedules: number;
  failed: ScheduleResult[];
  ends: Record<string, number>;
  steps: number;
  crashes: number;
  /** Schedules that hit each known gap (known-gaps.ts). */
  known: Record<string, number>;
}

/** The seed of the i-th schedule of a run: `--seed S` runs S, S+1, …; a failing one reruns alone by its own seed. */
export const scheduleSeed = (seed: number, i: number): number => (seed + i) >>> 0;

export async function runSchedules(o: RunOptions): Promise<RunSummary> {
  const root = mkdtempSync(join(o.scratch, 'revloop-dst-'));
  const summary: RunSummary = { schedules: 0, failed: [], ends: {}, steps: 0, crashes: 0, known: {} };
  // An error nobody awaited would kill a real controller: it fails the schedule it came from.
  let unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => void unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    for (let i = 0; i < o.schedules; i++) {
      unhandled = [];
      // Each schedule on an empty disk of its own (key, records, prompts), removed after it: what
      // one schedule left there must not change how the next one runs.
      const own = join(root, String(i));
      const repoRoot = join(own, 'repo');
      mkdirSync(repoRoot, { recursive: true });
      const r = await runSchedule(scheduleSeed(o.seed, i), {
        repoRoot,
        stateDir: join(own, 'state'),
        mutate: o.mutate,
      });
      rmSync(own, { recursive: true, force: true });
      for (const err of unhandled)
        r.violations.push({
          invariant: 'no unhandled rejection',
          message: String((err as Error)?.stack ?? err)
            .split('\n')
            .slice(0, 3)
            .join(' | '),
          step: null,
        });
      if (!tally(summary, r, o)) break;
    }
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  return summary;
}

/** Adds one schedule to the summary; false once enough schedules failed. */
function tally(summary: RunSummary, r: ScheduleResult, o: RunOptions): boolean {
  summary.schedules++;
  o.onSchedule?.(r);
  summary.steps += r.trace.length;
  summary.crashes += r.trace.filter((s) => s.fault === 'crash' || s.fault === 'crash-after').length;
  summary.ends[r.end] = (summary.ends[r.end] ?? 0) + 1;
  for (const id of new Set(r.known)) summary.known[id] = (summary.known[id] ?? 0) + 1;
  if (r.violations.length > 0) {
    summary.failed.push(r);
    o.onFailure?.(r);
    if (summary.failed.length >= (o.maxFailures ?? 5)) return false;
  }
  o.onProgress?.(summary.schedules, summary.failed.length);
  return true;
}

/** A failing schedule in words: seed, the first broken invariant and its step, then the steps up to it. */
export function describeFailure(r: ScheduleResult, tail = 40): string {
  const first = r.violations[0];
  const at = first?.step ?? r.trace.length;
  const lines = [
    `schedule seed ${r.seed} failed: invariant ${first?.invariant}: ${first?.message} (step ${first?.step ?? 'end'})`,
    `  config ${JSON.stringify(r.config)}`,
    `  faults ${JSON.stringify(r.profile)}; ${r.procs} processes; run ended ${r.end}`,
    ...r.violations
      .slice(1)
      .map((v) => `  also invariant ${v.invariant}: ${v.message}${v.step ? ` (step ${v.step})` : ''}`),
    `  steps ${Math.max(1, at - tail + 1)}..${at} of ${r.trace.length}:`,
    ...r.trace
      .filter((s) => s.n <= at && s.n > at - tail)
      .map((s) => `    ${String(s.n).padStart(5)} p${s.proc} ${s.call}${s.fault ? `  <- ${s.fault}` : ''}`),
    `  rerun alone: npm run test:dst -- --schedules 1 --seed ${r.seed}`,
  ];
  return lines.join('\n');
}
