/**
 * One schedule: the real driver, entered where the CLI enters it (the
 * store's admission, then `takeOver` and `driveRun` as `review` does, then
 * `resumeRun` as `revloop resume` does after every crash), over the
 * simulated world, with the scheduler's faults at every port call. Admission
 * itself (src/loop/admission.ts) is not run: it reads the repository's
 * identity and branch with git directly (src/git/identity.ts), outside the
 * Git port, so the schedule builds the same snapshot with admission's own
 * `buildSnapshot` and admits it through the store.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../src/core/canonical-json.js';
import type { RunRow } from '../../src/core/ledger.js';
import { replayRun } from '../../src/core/replay.js';
import { isTerminal } from '../../src/core/types.js';
import { sha256 } from '../../src/io/hash.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import { resumeRun, takeOver } from '../../src/loop/operations.js';
import { loadRunReport } from '../../src/loop/outputs/run-report-loader.js';
import { driveRun } from '../../src/loop/run/driver.js';
import { checkAll, type Ledger, type StoreOp, type Violation } from './invariants.js';
import { knownGap } from './known-gaps.js';
import { Rng } from './rng.js';
import { type FaultProfile, type Proc, Scheduler, type Step } from './scheduler.js';
import { CRITERIA, drawConfig, LEASE_TTL_MS, type SimConfig, World } from './world.js';

/** Processes per schedule: the last one runs without crashes, so every run ends. */
const MAX_PROCS = 8;

export interface ScheduleOptions {
  /** A real directory for what the driver keeps on disk (signing key, records, prompts). */
  repoRoot: string;
  stateDir: string;
  /** Test seam: changes the loop's dependencies of every process (a mutant port). */
  mutate?: ((deps: LoopDeps) => LoopDeps) | undefined;
}

export interface ScheduleResult {
  seed: number;
  config: SimConfig;
  profile: FaultProfile;
  procs: number;
  end: string;
  /** Broken invariants: the schedule fails. */
  violations: Violation[];
  /** Violations of a known gap (known-gaps.ts), by gap id: counted, never failing. */
  known: string[];
  trace: Step[];
  /**
   * sha256 of the ledger's final state and the step trace, with this process's
   * directories written out of it: a schedule run alone must give the same.
   */
  digest: string;
}

export function drawProfile(rng: Rng): FaultProfile {
  return {
    rate: rng.pick([0, 0.02, 0.05, 0.1, 0.2]),
    weights: {
      delay: 4,
      throwBefore: rng.pick([0, 1, 2]),
      throwAfter: rng.pick([0, 0.5, 1]),
      crash: rng.pick([0.5, 1, 2]),
      stall: rng.pick([0, 0.3]),
    },
  };
}

export async function runSchedule(seed: number, o: ScheduleOptions): Promise<ScheduleResult> {
  const rng = new Rng(seed);
  const config = drawConfig(rng);
  const profile = drawProfile(rng);
  const runId = `rdst${seed.toString(36)}`;
  const world = new World(rng, config, o.repoRoot, o.stateDir, runId, rng.pick([0, 0.05, 0.15, 0.3]));
  await world.init();
  const ops: StoreOp[] = [];
  const escaped: Violation[] = [];
  const procs: Proc[] = [];
  let stalling = false;
  let ended = false;
  let liveId = '';

  const sched: Scheduler = new Scheduler(rng, profile, {
    advance: (ms) => world.advance(ms),
    canStall: () => liveId !== '' && !stalling && !ended && procs.length < MAX_PROCS - 1,
    stall: async () => {
      // The stalled owner's lease runs out; another process takes the run over and drives it.
      stalling = true;
      world.advance(LEASE_TTL_MS + 1);
      await attempt((deps) => resumeRun(deps, liveId));
      stalling = false;
    },
    observe: (proc, method, args, out) => {
      ops.push({ proc: proc.id, method, args, ...out });
      if (out.applied && method === 'finishRun') ended = true;
    },
  });

  /** Runs one process to its end; what escapes it is judged, as the CLI would print it. */
  const attempt = async (body: (deps: LoopDeps) => Promise<unknown>, quiet = false) => {
    const n = procs.length + 1;
    const proc: Proc = { id: n, dead: false, crashes: n < MAX_PROCS - 1, quiet: quiet || n === MAX_PROCS };
    procs.push(proc);
    const base = world.deps(proc, sched);
    const deps = o.mutate ? o.mutate(base) : base;
    try {
      await body(deps);
    } catch (err) {
      if (!sched.isInjected(err) && !(err instanceof Error && 'code' in err))
        escaped.push({
          invariant: 'no bare error',
          message: `process ${proc.id}: ${(err as Error).stack?.split('\n').slice(0, 3).join(' | ')}`,
          step: sched.step,
        });
    }
    proc.dead = true;
  };

  // Two processes admit the same revision at once (invariant 3); the first drives the run.
  const admitted: (RunRow | null)[] = [null, null];
  await Promise.all(
    [0, 1].map((i) =>
      attempt(async (deps) => {
        const r = await deps.store.admit({ ...world.admission, runId: `${runId}${i ? 'b' : 'a'}` });
        if (r.kind !== 'deferred') admitted[i] = r.run;
      }),
    ),
  );
  let live = (await world.store.listRuns())[0] as RunRow | undefined;
  if (!live) {
    await attempt(
      async (deps) => void (await deps.store.admit({ ...world.admission, runId: `${runId}c` })),
      true,
    );
    live = (await world.store.listRuns())[0] as RunRow;
  }
  const run = live;
  liveId = run.id;
  if (admitted[0]?.id === run.id) {
    await attempt(async (deps) => {
      const lease = await takeOver(deps, run);
      if (lease) await driveRun(deps, lease);
    });
  }
  for (;;) {
    const now = (await world.store.getRun(run.id)) as RunRow;
    const recorded = now.status !== 'completed' || (now.recordPath !== null && existsSync(now.recordPath));
    if ((isTerminal(now.status) && recorded) || procs.length >= MAX_PROCS) break;
    await attempt((deps) => resumeRun(deps, run.id));
  }
  // Whatever a dead process left running settles before the ledger is judged.
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));

  const s = world.store;
  const ledger: Ledger = {
    run: (await s.getRun(run.id)) as RunRow,
    runs: await s.listRuns(),
    rounds: await s.listRounds(run.id),
    stages: await s.listStages(run.id),
    verdicts: await s.listVerdicts(run.id),
    attempts: await s.listAttempts(run.id),
    findings: await s.listFindings(run.id),
  };
  const found = [...escaped, ...(await checkAll({ world, config, ledger, invocations: world.log, ops }))];
  const report = await loadRunReport(s, run.id);
  if (report) {
    const replay = replayRun(report, CRITERIA, sha256);
    if (!replay.identical)
      found.push({
        invariant: '6 replay',
        message: `replay diverged at round ${replay.divergence?.round} ${replay.divergence?.stage}: ${replay.divergence?.what}`,
        step: null,
      });
  }
  const digest = digestOf(ledger, sched.trace, [o.stateDir, o.repoRoot, tmpdir()]);
  cleanUp(ledger.run);
  const known = found.flatMap((v) => knownGap(v)?.id ?? []);
  const violations = found.filter((v) => !knownGap(v));
  const r = ledger.run;
  return {
    seed,
    config,
    profile,
    procs: procs.length,
    end: r.status === 'completed' ? `completed/${r.outcome}/${r.stopReason}` : `${r.status}/${r.reason}`,
    violations,
    known,
    trace: sched.trace,
    digest,
  };
}

/** The schedule's fingerprint; paths that differ between processes (temp dirs) become placeholders. */
function digestOf(ledger: Ledger, trace: Step[], dirs: string[]): string {
  let text = canonicalJson({ ledger, trace });
  for (const [i, dir] of dirs.entries()) text = text.split(dir).join(`<dir${i}>`);
  return sha256(text);
}

/** What a schedule leaves on disk: its record, and checkouts a dead owner never removed. */
function cleanUp(run: RunRow): void {
  if (run.recordPath) rmSync(run.recordPath, { force: true });
  const dir = join(tmpdir(), 'revloop-worktrees');
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir))
    if (e.includes(`-${run.id}-`)) rmSync(join(dir, e), { recursive: true, force: true });
}
