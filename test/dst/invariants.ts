/**
 * DESIGN.md's invariants 1–14, judged on the ledger's final state after one
 * schedule (plus what the simulation saw happen: the agents' invocations, the
 * pushes, the store calls that were applied). One checker per invariant; each
 * returns sentences, an empty list being a pass.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopRuleFires } from '../../src/core/decide.js';
import { callKey } from '../../src/core/keys.js';
import type { AttemptRow, FindingRow, Lease, RoundRow, RunRow } from '../../src/core/ledger.js';
import { CONTROLLER_REVIEWER } from '../../src/core/run-report.js';
import { KEY_HOLDING } from '../../src/core/run-state.js';
import type { DecideResult, ReviewResult, StageRow, VerdictRow } from '../../src/core/stage-results.js';
import { isBlockingSeverity, isRetryable, isTerminal } from '../../src/core/types.js';
import { diffSections } from '../../src/git/diff-sections.js';
import { sha256 } from '../../src/io/hash.js';
import { chunkLimit, planReview } from '../../src/loop/run/review-plan.js';
import type { RecordedVerdict } from '../../src/ports/store.js';
import { DEFAULT_KEY_PREFIX } from '../../src/record/keys.js';
import { verifyRecord } from '../../src/record/verify.js';
import type { Invocation } from './agents.js';
import type { SimConfig, World } from './world.js';

/** A store call as it was applied (or refused), in the order it took effect. */
export interface StoreOp {
  seq: number;
  step: number;
  proc: number;
  method: string;
  args: unknown[];
  applied: boolean;
  result?: unknown;
}

export interface Ledger {
  run: RunRow;
  runs: RunRow[];
  rounds: RoundRow[];
  stages: StageRow[];
  verdicts: VerdictRow[];
  attempts: AttemptRow[];
  findings: FindingRow[];
}

export interface Facts {
  world: World;
  config: SimConfig;
  ledger: Ledger;
  invocations: Invocation[];
  ops: StoreOp[];
}

export interface Violation {
  invariant: string;
  message: string;
  /** The schedule step where it shows, when one can be named. */
  step: number | null;
}

/** The chunks the review of `revision` sends (the real planner over the simulated diff). */
async function reviewChunks(world: World, run: RunRow, revision: string) {
  const diff = await world.git.diffText(world.repoRoot, run.snapshot.mergeBase, revision);
  try {
    return planReview(run.snapshot, diff, diffSections(diff, chunkLimit(run.snapshot))).chunks;
  } catch {
    return [];
  }
}

type Checker = (
  f: Facts,
) => Promise<(string | { message: string; step: number })[]> | (string | { message: string; step: number })[];

const FENCED = new Set([
  'heartbeat',
  'beginRound',
  'beginAttempt',
  'endAttempt',
  'markInterruptedAttempts',
  'recordVerdict',
  'recordVerdicts',
  'completeStage',
  'finishRun',
]);

const stageOf = (l: Ledger, round: number, stage: string) =>
  l.stages.filter((s) => s.round === round && s.stage === stage);
const lastRound = (l: Ledger) => l.rounds.reduce((m, r) => Math.max(m, r.round), 0);
const decisions = (l: Ledger) =>
  l.stages.filter((s) => s.stage === 'decide').map((s) => ({ round: s.round, d: s.result as DecideResult }));

export const CHECKERS: Record<string, Checker> = {
  '1 no missing result is clear': ({ ledger: l, config, invocations }) => {
    if (l.run.outcome !== 'clear') return [];
    const out: string[] = [];
    const last = lastRound(l);
    const round = l.rounds.find((r) => r.round === last);
    if (!round || round.head !== l.run.head) out.push(`final round ${last} did not review the run's head`);
    const review = stageOf(l, last, 'review')[0]?.result as ReviewResult | undefined;
    if (!review) out.push(`clear without a completed review of round ${last}`);
    for (const name of config.reviewers) {
      const v = l.verdicts.find(
        (x) => x.role === 'reviewer' && x.reviewer === name && x.round === last && x.revision === l.run.head,
      );
      if (!v) {
        out.push(`clear, but reviewer ${name} has no verdict on the final head`);
        continue;
      }
      if (!invocations.some((i) => i.callKey === v.callKey && i.class === 'ok'))
        out.push(
          `clear on reviewer ${name}'s verdict ${v.callKey.slice(0, 12)}, which no call of it answered`,
        );
    }
    for (const a of l.attempts.filter((x) => x.round === last)) {
      if (!l.verdicts.some((v) => v.callKey === a.callKey))
        out.push(
          `clear, but the ${a.stage} call of ${a.reviewer} in round ${last} ended ${a.class} with no verdict (call ${a.callKey.slice(0, 12)}; its verdicts there: ${
            l.verdicts
              .filter((v) => v.round === last && v.reviewer === a.reviewer)
              .map((v) => v.callKey.slice(0, 12))
              .join(', ') || 'none'
          })`,
        );
    }
    return out;
  },

  '2 status is not outcome': ({ ledger: l }) => {
    const r = l.run;
    const out: string[] = [];
    if (!isTerminal(r.status)) out.push(`run is still ${r.status} after the schedule`);
    if (r.status === 'completed') {
      if (r.outcome === null || r.stopReason === null)
        out.push('completed without an outcome and stop reason');
      const last = decisions(l).sort((a, b) => b.round - a.round)[0];
      if (last?.d.decision.kind !== 'stop' || last.d.decision.outcome !== r.outcome)
        out.push(`outcome ${r.outcome} is not the last recorded decision's`);
      if (r.outcome === 'clear' && last && last.d.openBlockers.length > 0)
        out.push(`clear with ${last.d.openBlockers.length} open blockers`);
    } else if (isTerminal(r.status) && (r.outcome !== null || r.stopReason !== null || r.reason === null)) {
      out.push(`${r.status} run carries outcome ${r.outcome} / stop ${r.stopReason} / reason ${r.reason}`);
    }
    return out;
  },

  '3 admission is idempotent': ({ ledger: l }) => {
    const holding = l.runs.filter(
      (r) => r.admissionKey === l.run.admissionKey && KEY_HOLDING.includes(r.status),
    );
    return holding.length > 1 ? [`${holding.length} runs hold one admission key`] : [];
  },

  '4 inputs are frozen': ({ ledger: l, world }) => {
    const out: string[] = [];
    const headOf = new Map(l.rounds.map((r) => [r.round, r.head]));
    for (const v of l.verdicts)
      if (headOf.get(v.round) !== v.revision)
        out.push(
          `verdict ${v.callKey.slice(0, 12)} looked at ${v.revision.slice(0, 8)}, not round ${v.round}'s head`,
        );
    for (const f of l.findings)
      if (headOf.get(f.round) !== f.revision)
        out.push(`finding ${f.id.slice(0, 12)} is about another revision`);
    const push = world.pushes[0];
    if (push !== undefined && l.run.status === 'completed')
      out.push(`the change was pushed to at step ${push} (before a stage), yet the run completed`);
    return out;
  },

  '5 completion is a transaction': ({ ledger: l }) => {
    const out: string[] = [];
    const seen = new Set<string>();
    for (const s of l.stages) {
      const k = `${s.round}:${s.stage}`;
      if (seen.has(k)) out.push(`stage ${k} completed twice`);
      seen.add(k);
      if (s.snapshotKey !== l.run.snapshotKey) out.push(`stage ${k} completed under another snapshot`);
    }
    for (const { round } of l.rounds) {
      if (round > 1 && !seen.has(`${round - 1}:fix`))
        out.push(`round ${round} began without round ${round - 1}'s fix`);
      if (seen.has(`${round}:decide`) && !(seen.has(`${round}:review`) && seen.has(`${round}:refute`)))
        out.push(`round ${round} decided before its review and refutation completed`);
      if (seen.has(`${round}:fix`) && !seen.has(`${round}:decide`))
        out.push(`round ${round} fixed before deciding`);
    }
    for (const f of l.findings)
      if (!seen.has(`${f.round}:review`)) out.push(`finding ${f.id.slice(0, 12)} without its review stage`);
    return out;
  },

  '6 every verdict is replayable': async ({ ledger: l, invocations, ops, world }) => {
    const out: (string | { message: string; step: number })[] = [];
    for (const v of l.verdicts) {
      const keyFor = (chunk?: { index: number; files: string[] }) =>
        callKey(
          {
            snapshotKey: l.run.snapshotKey,
            runId: l.run.id,
            round: v.round,
            stage: v.stage,
            role: v.role,
            name: v.reviewer,
            promptDigest: v.promptDigest,
            chunk,
          },
          sha256,
        );
      // A chunk call's key names its chunk: the review's result says which; a review that never
      // completed is planned again from the revision's diff, and one of its chunks must match.
      const named = stageOf(l, v.round, 'review')
        .flatMap((s) => (s.result as ReviewResult).verdicts)
        .find((x) => x.callKey === v.callKey);
      const candidates = named
        ? [named.chunk]
        : [
            undefined,
            ...(await reviewChunks(world, l.run, v.revision)).map((c) => ({
              index: c.index,
              files: c.files,
            })),
          ];
      if (!candidates.some((c) => keyFor(c) === v.callKey))
        out.push(`verdict ${v.callKey.slice(0, 12)} is not under its call key`);
      const oks = l.attempts.filter((a) => a.callKey === v.callKey && a.class === 'ok');
      if (oks.length !== 1) out.push(`verdict ${v.callKey.slice(0, 12)} has ${oks.length} ok attempts`);
      // Recorded alone (recordVerdict) or in a chunked round's group commit (recordVerdicts).
      const recorded = ops.find(
        (o) =>
          o.applied &&
          ((o.method === 'recordVerdict' &&
            (o.args[1] as VerdictRow).callKey === v.callKey &&
            (o.result as { inserted: boolean }).inserted) ||
            (o.method === 'recordVerdicts' &&
              (o.result as RecordedVerdict[]).some((r) => r.inserted && r.verdict.callKey === v.callKey))),
      );
      // Asked again = an attempt of the call began once its verdict was in the ledger. An owner
      // whose attempt began before (and who lost the run while its call was under way) still
      // reaches the agent after the taker recorded the verdict; its own record is then fenced.
      const again =
        recorded &&
        ops.find(
          (o) =>
            o.applied &&
            o.method === 'beginAttempt' &&
            (o.args[1] as { callKey: string }).callKey === v.callKey &&
            o.seq > recorded.seq,
        );
      if (again)
        out.push({
          message: `call ${v.callKey.slice(0, 12)} asked again after its verdict (process ${again.proc})`,
          step: again.step,
        });
    }
    for (const i of invocations) {
      const attempts = l.attempts.filter((a) => a.callKey === i.callKey).length;
      const calls = invocations.filter((x) => x.callKey === i.callKey).length;
      if (calls > attempts) {
        out.push(`call ${i.callKey.slice(0, 12)}: ${calls} invocations, ${attempts} attempts`);
        break;
      }
    }
    return out;
  },

  '7 retry narrowly': ({ ledger: l, config, invocations }) => {
    const out: (string | { message: string; step: number })[] = [];
    const byKey = new Map<string, AttemptRow[]>();
    for (const a of l.attempts) byKey.set(a.callKey, [...(byKey.get(a.callKey) ?? []), a]);
    for (const [key, as] of byKey) {
      const k = key.slice(0, 12);
      as.sort((a, b) => a.attemptNo - b.attemptNo);
      as.forEach((a, i) => {
        if (a.attemptNo !== i + 1)
          out.push(`call ${k}: attempts numbered ${as.map((x) => x.attemptNo).join(',')}`);
      });
      const calls = invocations.filter((i) => i.callKey === key);
      for (const a of as.slice(0, -1)) {
        if (a.class === 'unknown' || isRetryable(a.class as never)) continue;
        const [got, again] = [calls[a.attemptNo - 1], calls[a.attemptNo]];
        const by = got && again && got.proc !== again.proc ? ' by the process that took the run over' : '';
        const message = `call ${k}: attempt ${a.attemptNo} ended ${a.class} and was tried again${by}`;
        out.push(again ? { message, step: again.step } : message);
      }
      const unknown = as.filter((a) => a.class === 'unknown').length;
      if (as.length > config.attempts + unknown) {
        const by = new Set(calls.map((c) => c.proc)).size > 1 ? ' across a takeover' : '';
        out.push(`call ${k}: ${as.length} attempts, cap ${config.attempts} (+${unknown} interrupted)${by}`);
      }
      if (isTerminal(l.run.status) && as.some((a) => a.class === 'started'))
        out.push(`call ${k}: an attempt is still started in a ${l.run.status}/${l.run.reason} run`);
    }
    return out;
  },

  '8 progress is defined before the loop': ({ ledger: l }) => {
    const out: string[] = [];
    for (const { round, d } of decisions(l)) {
      const fires = stopRuleFires(d.progress, 2);
      if (d.decision.kind === 'stop' && d.decision.stopReason === 'no_progress' && !fires)
        out.push(`round ${round} stopped no_progress on progress ${JSON.stringify(d.progress)}`);
      if (d.decision.kind === 'fix' && fires)
        out.push(`round ${round} went on after two rounds without progress`);
      if (d.progress.length !== round)
        out.push(`round ${round}'s decision holds ${d.progress.length} progress flags`);
    }
    return out;
  },

  '9 blockers need a scenario': ({ ledger: l }) =>
    l.findings
      .filter((f) => f.reviewer !== CONTROLLER_REVIEWER && isBlockingSeverity(f.severity))
      .filter((f) => !f.reported.failureScenario?.trim() && !f.reported.violatedClause?.trim())
      .map((f) => `finding ${f.id.slice(0, 12)} blocks with neither scenario nor clause`),

  '10 blockers survive a skeptic': ({ ledger: l, config }) => {
    const out: string[] = [];
    const byId = new Map(l.findings.map((f) => [f.id, f]));
    for (const { round, d } of decisions(l)) {
      for (const b of d.openBlockers) {
        const f = byId.get(b.id);
        if (!f || f.reviewer === CONTROLLER_REVIEWER) continue;
        if (f.refutation?.decision === 'refuted')
          out.push(`round ${round}: refuted finding ${b.id.slice(0, 12)} blocks`);
        if (config.refuter && !f.refutation && !f.settlement && !(d.spentUsd >= config.costUsd))
          out.push(`round ${round}: blocker ${b.id.slice(0, 12)} was never put to the refuter`);
      }
    }
    return out;
  },

  '11 scope lock': ({ ledger: l }) => {
    const out: string[] = [];
    for (const { d: _d, round } of decisions(l)) {
      const review = stageOf(l, round, 'review')[0]?.result as ReviewResult | undefined;
      for (const f of l.findings.filter((x) => x.round === round && isBlockingSeverity(x.severity))) {
        const facts = review?.scope[f.id];
        const said = (f.reported.missedBecause?.trim().split(/\s+/).length ?? 0) >= 3;
        if (facts?.passedAt && !facts.touchedSincePass && !said && l.run.snapshot.policy.scopeLock)
          out.push(`finding ${f.id.slice(0, 12)} blocks on a line unchanged since its reviewer passed`);
      }
    }
    return out;
  },

  '12 the budget belongs to the controller': ({ ledger: l, config, ops }) => {
    const out: string[] = [];
    if (lastRound(l) > config.rounds) out.push(`${lastRound(l)} rounds under a budget of ${config.rounds}`);
    const verdictSum = l.verdicts.reduce((s, v) => s + v.costUsd, 0);
    const paid = ops.filter(
      (o) => o.applied && o.method === 'endAttempt' && ((o.args[5] as number) ?? 0) > 0,
    );
    const rejected = paid.reduce((s, o) => s + (o.args[5] as number), 0);
    if (Math.abs(l.run.costUsd - (verdictSum + rejected)) > 1e-6) {
      const after = paid.some((p) =>
        ops.some((o) => o.applied && o.method === 'completeStage' && o.seq > p.seq),
      );
      const why = after ? ' (a stage completed after a paid rejection)' : '';
      out.push(
        `run cost ${l.run.costUsd} but its verdicts and paid rejections sum to ${verdictSum + rejected}${why}`,
      );
    }
    if (l.run.outcome === 'clear' && l.run.costUsd > config.costUsd + 1e-9)
      out.push(`clear with $${l.run.costUsd} spent over a $${config.costUsd} budget`);
    return out;
  },

  '13 a lost lease cannot write': ({ ops }) => {
    const out: { message: string; step: number }[] = [];
    let current = 0;
    let endedAt: number | null = null;
    // Judged by the lease each process was granted, not by the token its write claims.
    const held = new Map<number, number>();
    for (const o of [...ops].sort((a, b) => a.seq - b.seq)) {
      if (!o.applied) continue;
      if ((o.method === 'acquireLease' || o.method === 'claimNext') && o.result) {
        current = Math.max(current, (o.result as Lease).token);
        held.set(o.proc, (o.result as Lease).token);
      }
      const lease = { token: held.get(o.proc) ?? (o.args[0] as Lease).token };
      if (!FENCED.has(o.method)) continue;
      if (endedAt !== null)
        out.push({ message: `${o.method} by process ${o.proc} applied after the run ended`, step: o.step });
      if (lease.token !== current)
        out.push({
          message: `${o.method} by process ${o.proc} applied with token ${lease.token}, current ${current}`,
          step: o.step,
        });
      if (o.method === 'finishRun') endedAt ??= o.step;
    }
    return out;
  },

  '14 a clean record is not permission to merge': async ({ ledger: l, world }) => {
    const r = l.run;
    if (r.status !== 'completed') return r.recordPath ? [`a ${r.status} run has a record`] : [];
    if (!r.recordPath || !existsSync(r.recordPath)) return ['completed run without a record on disk'];
    const res = await verifyRecord(readFileSync(r.recordPath, 'utf8'), {
      git: world.git,
      repo: world.repoRoot,
      keys: [join(world.repoRoot, `${DEFAULT_KEY_PREFIX}.pub`)],
      subject: r.head,
      allowFindings: true,
    });
    const out = res.ok ? [] : [`record does not verify: ${res.code}: ${res.reason}`];
    if (res.ok && res.outcome !== r.outcome) out.push(`record says ${res.outcome}, ledger ${r.outcome}`);
    return out;
  },
};

/** Every checker over one schedule's final state; a checker that throws is a violation, not a crash. */
export async function checkAll(f: Facts): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const [invariant, check] of Object.entries(CHECKERS)) {
    try {
      for (const v of await check(f))
        out.push(typeof v === 'string' ? { invariant, message: v, step: null } : { invariant, ...v });
    } catch (err) {
      out.push({ invariant, message: `checker failed: ${(err as Error).message}`, step: null });
    }
  }
  return out;
}
