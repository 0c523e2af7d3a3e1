/**
 * Database rows (snake_case columns shared by the SQLite and PostgreSQL
 * schemas) to ledger rows. SQLite hands JSON back as text and PostgreSQL as
 * parsed jsonb, and bigint as a string: `json` and `num` absorb both.
 */
import type {
  AttemptRow,
  FindingRow,
  GateDecision,
  JudgementRow,
  LeaseOwner,
  Refutation,
  RoundRow,
  RunRow,
  Settlement,
} from '../../core/ledger.js';
import type { ReusedFrom, StageCompletion, StageRow, VerdictRow } from '../../core/stage-results.js';
import { parseJudgementReply, parseStageRow, parseVerdictRow } from '../../core/stored-rows.js';
import type {
  EndReason,
  Outcome,
  ReportedFinding,
  Role,
  RunStatus,
  Severity,
  Snapshot,
  Stage,
  StopReason,
} from '../../core/types.js';

export type Raw = Record<string, unknown>;

const json = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : (v ?? null));
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));
const str = (v: unknown): string => v as string;
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : (v as string));

export const toRun = (r: Raw): RunRow => ({
  id: str(r.id),
  admissionKey: str(r.admission_key),
  changeKey: str(r.change_key),
  repo: str(r.repo),
  snapshotKey: str(r.snapshot_key),
  snapshot: json(r.snapshot) as Snapshot,
  status: r.status as RunStatus,
  outcome: strOrNull(r.outcome) as Outcome | null,
  stopReason: strOrNull(r.stop_reason) as StopReason | null,
  reason: strOrNull(r.reason) as EndReason | null,
  detail: strOrNull(r.detail),
  rerun:
    r.rerun === null || r.rerun === undefined || num(r.rerun) === 0
      ? null
      : { ordinal: num(r.rerun), by: str(r.rerun_by ?? ''), reason: str(r.rerun_reason ?? '') },
  head: str(r.head),
  roundsDone: num(r.rounds_done),
  costUsd: num(r.cost_usd),
  fencingToken: num(r.fencing_token),
  leaseOwner: json(r.lease_owner) as LeaseOwner | null,
  leaseExpiresAt: numOrNull(r.lease_expires_at),
  recordPath: strOrNull(r.record_path),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
  endedAt: numOrNull(r.ended_at),
});

export const toRound = (r: Raw): RoundRow => ({
  runId: str(r.run_id),
  round: num(r.round),
  head: str(r.head),
  startedAt: num(r.started_at),
});

/**
 * The row a completion just inserted, from the columns the insert returned
 * and the result's own JSON text: what reading it back gives, without that
 * read's schema parse. The result was typed by its stage when it was built,
 * and the stage schemas neither default nor transform, so the parse would
 * return the same value; it cost 20 ms on a 2,000-file review result (bench: large-change).
 */
export const recordedStage = (c: StageCompletion, inserted: Raw | undefined, resultJson: string): StageRow =>
  ({
    runId: str(inserted?.run_id),
    round: c.round,
    stage: c.stage,
    snapshotKey: str(inserted?.snapshot_key),
    result: JSON.parse(resultJson),
    completedAt: num(inserted?.completed_at),
  }) as StageRow;

/** The result is parsed by its stage's schema on the way out (core/stored-rows.ts). */
export const toStage = (r: Raw): StageRow =>
  parseStageRow({
    runId: str(r.run_id),
    round: num(r.round),
    stage: str(r.stage),
    snapshotKey: str(r.snapshot_key),
    result: json(r.result),
    completedAt: num(r.completed_at),
  });

/** The reply is parsed by its role's schema on the way out (core/stored-rows.ts). */
export const toVerdict = (r: Raw): VerdictRow =>
  parseVerdictRow({
    callKey: str(r.call_key),
    runId: str(r.run_id),
    round: num(r.round),
    stage: str(r.stage),
    role: str(r.role),
    reviewer: str(r.reviewer),
    revision: str(r.revision),
    promptDigest: str(r.prompt_digest),
    modelId: strOrNull(r.model_id),
    reply: json(r.reply),
    costUsd: num(r.cost_usd),
    recordedAt: num(r.recorded_at),
    // Only when set: a verdict of a call that cannot be reused reads as it did before reuse existed.
    ...(r.reuse_key ? { reuseKey: str(r.reuse_key) } : {}),
    ...(r.reused_from ? { reusedFrom: reusedFromOf(json(r.reused_from)) } : {}),
  });

const reusedFromOf = (v: unknown): ReusedFrom => {
  const o = (v ?? {}) as Record<string, unknown>;
  const from = { callKey: str(o.callKey), runId: str(o.runId), revision: str(o.revision) };
  return typeof o.confined === 'boolean' ? { ...from, confined: o.confined } : from;
};

export const toJudgement = (r: Raw): JudgementRow => ({
  callKey: str(r.call_key),
  runId: str(r.run_id),
  caseId: str(r.case_id),
  judge: str(r.judge),
  finding: num(r.finding),
  defect: num(r.defect),
  promptDigest: str(r.prompt_digest),
  modelId: strOrNull(r.model_id),
  reply: parseJudgementReply(str(r.run_id), str(r.call_key), json(r.reply)),
  costUsd: num(r.cost_usd),
  recordedAt: num(r.recorded_at),
});

export const toAttempt = (r: Raw): AttemptRow => ({
  runId: str(r.run_id),
  callKey: str(r.call_key),
  attemptNo: num(r.attempt_no),
  round: num(r.round),
  stage: r.stage as Stage,
  role: r.role as Role,
  reviewer: str(r.reviewer),
  class: r.class as AttemptRow['class'],
  detail: strOrNull(r.detail),
  startedAt: num(r.started_at),
  endedAt: numOrNull(r.ended_at),
  confined: r.confined === true || r.confined === 1,
});

/**
 * What a finding's `gate` column holds: its gate, and under repeat sampling
 * its reproduction count beside it (the column is JSON in both databases, so
 * the count needed no migration; a row without one reads as before).
 */
export const gateColumn = (f: Pick<FindingRow, 'gate' | 'reproduction'>): unknown =>
  f.reproduction ? { ...f.gate, reproduction: f.reproduction } : f.gate;

function fromGateColumn(raw: unknown): Pick<FindingRow, 'gate' | 'reproduction'> {
  const { reproduction, ...gate } = json(raw) as GateDecision & { reproduction?: FindingRow['reproduction'] };
  return reproduction ? { gate, reproduction } : { gate };
}

/** A finding row joined with its settlement (columns s_by, s_decision, s_note, s_at, s_origin). */
export const toFinding = (r: Raw): FindingRow => ({
  id: str(r.id),
  runId: str(r.run_id),
  round: num(r.round),
  reviewer: str(r.reviewer),
  revision: str(r.revision),
  callKey: str(r.call_key),
  index: num(r.idx),
  reported: json(r.reported) as ReportedFinding,
  severity: r.severity as Severity,
  ...fromGateColumn(r.gate),
  refutation: json(r.refutation) as Refutation | null,
  dispute: json(r.dispute) as { reason: string } | null,
  settlement:
    r.s_by === null || r.s_by === undefined
      ? null
      : ({
          by: str(r.s_by),
          decision: r.s_decision as Settlement['decision'],
          note: strOrNull(r.s_note),
          at: num(r.s_at),
          ...(r.s_origin === null || r.s_origin === undefined
            ? {}
            : { origin: json(r.s_origin) as NonNullable<Settlement['origin']> }),
        } satisfies Settlement),
  content: strOrNull(r.content),
});
