/**
 * An in-process Store with the same contract as SQLite and PostgreSQL (the
 * contract suite runs against all three), for unit tests of the loop. Every
 * method is atomic because nothing yields between its check and its write.
 * Values are copied in and out so callers cannot mutate the ledger.
 */
import type {
  AttemptClass,
  AttemptRow,
  AttemptStart,
  FindingRow,
  JudgementRow,
  Lease,
  LeaseOwner,
  RoundRow,
  RunRow,
  Settlement,
} from '../core/ledger.js';
import { stageRank } from '../core/round-order.js';
import { ACTIVE_STATUSES, assertTransition, isClaimable } from '../core/run-state.js';
import type { NewVerdict, StageRow, VerdictRow } from '../core/stage-results.js';
import { parseStageRow, parseVerdictRow, type RawStageRow, type RawVerdictRow } from '../core/stored-rows.js';
import { isTerminal, RunStatus, type Stage } from '../core/types.js';
import type {
  AdmitInput,
  AdmitResult,
  RecordedVerdict,
  RunEnd,
  RunFilter,
  StageCompletion,
  Store,
  VerdictToRecord,
} from '../ports/store.js';
import {
  AlreadySettledError,
  LedgerConflictError,
  StageConflictError,
  UnknownFindingError,
  UnknownRunError,
} from './errors.js';
import { MemoryDeliveries } from './memory-deliveries.js';
import {
  admissionCost,
  attemptNeverBegun,
  checkFence,
  checkRunEnd,
  copyJson,
  costWindowStart,
  limitVerdict,
  planAdmission,
  sameJson,
} from './shared/rules.js';

export interface MemoryStoreOptions {
  now?: () => number;
}

/** A run as kept here: the row, plus what only admission and the limits read. */
type StoredRun = RunRow & { budgetUsd: number; seq: number; revisionKey: string };

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private readonly now: () => number;
  private readonly runs = new Map<string, StoredRun>();
  private readonly rounds: RoundRow[] = [];
  // Kept as written and parsed on the way out, as the SQL stores do (core/stored-rows.ts).
  private readonly stages: (RawStageRow & { stage: Stage })[] = [];
  private readonly verdicts = new Map<string, RawVerdictRow>();
  private readonly judgements = new Map<string, JudgementRow>();
  private readonly attempts: AttemptRow[] = [];
  private readonly findings = new Map<string, FindingRow>();
  private readonly bundles = new Map<string, Buffer>();
  private readonly envelopes = new Map<string, string>();
  private seq = 0;
  readonly deliveries: MemoryDeliveries;

  constructor(opts: MemoryStoreOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.deliveries = new MemoryDeliveries({
      now: () => this.now(),
      runs: () => this.runs.values(),
      abort: (r, detail) => {
        this.end(r, {
          status: RunStatus.aborted,
          outcome: null,
          stopReason: null,
          reason: 'superseded',
          detail,
        });
        r.fencingToken++;
        return this.out(r);
      },
    });
  }

  async close(): Promise<void> {}

  async admit(input: AdmitInput): Promise<AdmitResult> {
    // The revision's newest run: the highest rerun, then the latest made.
    let newest: StoredRun | undefined;
    for (const r of this.runs.values())
      if (r.revisionKey === input.admissionKey) {
        const rank = (x: typeof r) => [x.rerun?.ordinal ?? 0, x.seq] as const;
        const [a, b] = [rank(r), newest ? rank(newest) : ([-1, -1] as const)];
        if (a[0] > b[0] || (a[0] === b[0] && a[1] > b[1])) newest = r;
      }
    const plan = planAdmission(input, newest ? this.out(newest) : null);
    if (plan.kind === 'existing') return plan;
    const now = this.now();
    const from = costWindowStart(input, now);
    let active = 0;
    let committedUsd = 0;
    for (const r of this.runs.values()) {
      if (input.limits?.perRepository && r.repo !== input.repo) continue;
      const live = ACTIVE_STATUSES.includes(r.status);
      if (live) active++;
      if (r.createdAt >= from) committedUsd += live ? r.budgetUsd : r.costUsd;
    }
    const deferred = limitVerdict(input, { active, committedUsd });
    if (deferred) return deferred;
    if (this.runs.has(input.runId)) throw new LedgerConflictError(`run id ${input.runId} is taken`);
    const run = {
      id: input.runId,
      admissionKey: plan.admissionKey,
      revisionKey: input.admissionKey,
      rerun: plan.rerun,
      changeKey: input.changeKey,
      repo: input.repo,
      snapshotKey: input.snapshotKey,
      snapshot: copyJson(input.snapshot),
      status: RunStatus.queued,
      outcome: null,
      stopReason: null,
      reason: null,
      detail: null,
      head: input.snapshot.head,
      roundsDone: 0,
      costUsd: 0,
      fencingToken: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
      recordPath: null,
      createdAt: now,
      updatedAt: now,
      endedAt: null,
      budgetUsd: admissionCost(input),
      seq: ++this.seq,
    };
    this.runs.set(run.id, run);
    return { kind: 'created', run: this.out(run) };
  }

  async acquireLease(
    runId: string,
    owner: LeaseOwner,
    ttlMs: number,
    ifToken?: number,
  ): Promise<Lease | null> {
    const r = this.runs.get(runId);
    if (!r || isTerminal(r.status)) return null;
    const now = this.now();
    const free = r.leaseOwner === null || (r.leaseExpiresAt ?? 0) <= now;
    if (!free && !(ifToken !== undefined && r.fencingToken === ifToken)) return null;
    return this.take(r, owner, ttlMs, now);
  }

  async claimNext(owner: LeaseOwner, ttlMs: number, repo?: string): Promise<Lease | null> {
    const now = this.now();
    const next = this.claimable(now, repo).sort((a, b) => a.createdAt - b.createdAt || a.seq - b.seq)[0];
    return next ? this.take(next, owner, ttlMs, now) : null;
  }

  async hasClaimable(repo?: string): Promise<boolean> {
    return this.claimable(this.now(), repo).length > 0;
  }

  private claimable(now: number, repo: string | undefined): (RunRow & { seq: number })[] {
    return [...this.runs.values()].filter(
      (r) => (repo === undefined || r.repo === repo) && isClaimable(r, now),
    );
  }

  async heartbeat(lease: Lease, ttlMs: number): Promise<Lease> {
    const r = this.fenced(lease);
    const now = this.now();
    r.leaseOwner = copyJson(lease.owner);
    r.leaseExpiresAt = now + ttlMs;
    r.updatedAt = now;
    return { ...lease, owner: copyJson(lease.owner), expiresAt: now + ttlMs };
  }

  async releaseLease(lease: Lease): Promise<void> {
    const r = this.runs.get(lease.runId);
    if (!r || r.fencingToken !== lease.token) return;
    r.leaseOwner = null;
    r.leaseExpiresAt = null;
    r.updatedAt = this.now();
  }

  async beginRound(lease: Lease, round: number, head: string): Promise<void> {
    this.fenced(lease);
    const had = this.rounds.find((x) => x.runId === lease.runId && x.round === round);
    if (had) {
      if (had.head !== head)
        throw new LedgerConflictError(
          `run ${lease.runId}: round ${round} was begun at ${had.head}, not ${head}`,
        );
      return;
    }
    this.rounds.push({ runId: lease.runId, round, head, startedAt: this.now() });
  }

  async beginAttempt(lease: Lease, a: AttemptStart): Promise<void> {
    this.fenced(lease);
    if (this.findAttempt(lease.runId, a.callKey, a.attemptNo)) return;
    this.attempts.push({
      ...copyJson(a),
      confined: a.confined === true,
      runId: lease.runId,
      class: 'started',
      detail: null,
      startedAt: this.now(),
      endedAt: null,
    });
  }

  async endAttempt(
    lease: Lease,
    callKey: string,
    attemptNo: number,
    cls: AttemptClass,
    detail: string | null,
    spentUsd = 0,
  ): Promise<void> {
    this.fenced(lease);
    this.endAttemptIn(lease.runId, callKey, attemptNo, cls, detail);
    const run = this.runs.get(lease.runId);
    if (run && spentUsd > 0) run.costUsd += spentUsd;
  }

  /** Ends an attempt; throws, changing nothing, when it was never begun. */
  private endAttemptIn(
    runId: string,
    callKey: string,
    attemptNo: number,
    cls: AttemptClass,
    detail: string | null,
  ): void {
    const at = this.findAttempt(runId, callKey, attemptNo);
    if (!at) throw attemptNeverBegun(runId, callKey, attemptNo);
    at.class = cls;
    at.detail = detail;
    at.endedAt = this.now();
  }

  async markInterruptedAttempts(lease: Lease): Promise<number> {
    this.fenced(lease);
    const now = this.now();
    let n = 0;
    for (const a of this.attempts)
      if (a.runId === lease.runId && a.class === 'started') {
        a.class = 'unknown';
        a.endedAt = now;
        n++;
      }
    return n;
  }

  async recordVerdict(
    lease: Lease,
    v: NewVerdict,
    endsAttempt?: number,
    attemptDetail?: string | null,
  ): Promise<{ inserted: boolean; verdict: VerdictRow }> {
    this.fenced(lease);
    return this.recordVerdictIn(lease, { verdict: v, endsAttempt, attemptDetail });
  }

  async recordVerdicts(lease: Lease, items: readonly VerdictToRecord[]): Promise<RecordedVerdict[]> {
    this.fenced(lease);
    // All or none, as one transaction: every attempt is checked before anything is written.
    for (const { verdict: v, endsAttempt } of items)
      if (endsAttempt !== undefined && !this.findAttempt(lease.runId, v.callKey, endsAttempt))
        throw attemptNeverBegun(lease.runId, v.callKey, endsAttempt);
    return items.map((item) => this.recordVerdictIn(lease, item));
  }

  private recordVerdictIn(
    lease: Lease,
    { verdict: v, endsAttempt, attemptDetail }: VerdictToRecord,
  ): RecordedVerdict {
    // First, so a missing attempt records nothing.
    if (endsAttempt !== undefined)
      this.endAttemptIn(lease.runId, v.callKey, endsAttempt, 'ok', attemptDetail ?? null);
    const had = this.verdicts.get(v.callKey);
    if (had) return { inserted: false, verdict: parseVerdictRow(copyJson(had)) };
    const row: RawVerdictRow = { ...copyJson(v), recordedAt: this.now() };
    this.verdicts.set(v.callKey, row);
    // Invariant 12: every cent is on the run the moment its verdict is.
    const run = this.runs.get(lease.runId);
    if (run) run.costUsd += v.costUsd;
    return { inserted: true, verdict: parseVerdictRow(copyJson(row)) };
  }

  async completeStage(lease: Lease, c: StageCompletion): Promise<StageRow> {
    const r = this.fenced(lease);
    const had = this.stages.find((s) => s.runId === r.id && s.round === c.round && s.stage === c.stage);
    if (had) {
      if (!sameJson(had.result, c.result)) throw new StageConflictError(r.id, c.round, c.stage);
      return parseStageRow(copyJson(had));
    }
    // Validate every side row before touching anything: all or nothing (invariant 5).
    for (const f of c.findings ?? [])
      if (this.findings.has(f.id)) throw new LedgerConflictError(`finding ${f.id} is already recorded`);
    const fresh = new Set((c.findings ?? []).map((f) => f.id));
    for (const x of [...(c.refutations ?? []), ...(c.disputes ?? []), ...(c.settlements ?? [])]) {
      const f = this.findings.get(x.findingId);
      if (!fresh.has(x.findingId) && (!f || f.runId !== r.id)) throw new UnknownFindingError(x.findingId);
    }
    const now = this.now();
    const row = {
      runId: r.id,
      round: c.round,
      stage: c.stage,
      snapshotKey: r.snapshotKey,
      result: copyJson(c.result ?? null),
      completedAt: now,
    };
    this.stages.push(row);
    for (const f of c.findings ?? [])
      this.findings.set(f.id, {
        ...copyJson(f),
        runId: r.id,
        refutation: null,
        dispute: null,
        settlement: null,
      });
    for (const x of c.refutations ?? []) this.findings.get(x.findingId)!.refutation = copyJson(x.refutation);
    for (const x of c.disputes ?? []) this.findings.get(x.findingId)!.dispute = { reason: x.reason };
    for (const x of c.settlements ?? []) {
      const f = this.findings.get(x.findingId)!;
      f.settlement ??= copyJson(x.settlement);
    }
    if (c.run?.head !== undefined) r.head = c.run.head;
    if (c.run?.costUsd !== undefined) r.costUsd = c.run.costUsd;
    if (c.run?.roundsDone !== undefined) r.roundsDone = c.run.roundsDone;
    r.updatedAt = now;
    return parseStageRow(copyJson(row));
  }

  async finishRun(lease: Lease, end: RunEnd): Promise<RunRow> {
    const r = this.fenced(lease);
    checkRunEnd(r.id, end);
    this.end(r, end);
    return this.out(r);
  }

  async setRecordPath(runId: string, path: string): Promise<void> {
    const r = this.runs.get(runId);
    if (!r) throw new UnknownRunError(runId);
    r.recordPath = path;
    r.updatedAt = this.now();
  }

  async putFixBundle(lease: Lease, commit: string, bundle: Buffer): Promise<void> {
    this.fenced(lease);
    const key = `${lease.runId} ${commit}`;
    if (!this.bundles.has(key)) this.bundles.set(key, Buffer.from(bundle));
  }

  async getFixBundle(runId: string, commit: string): Promise<Buffer | null> {
    return this.bundles.get(`${runId} ${commit}`) ?? null;
  }

  async putRecordEnvelope(runId: string, envelope: string): Promise<string> {
    if (!this.runs.has(runId)) throw new UnknownRunError(runId);
    if (!this.envelopes.has(runId)) this.envelopes.set(runId, envelope);
    return this.envelopes.get(runId) as string;
  }

  async getRecordEnvelope(runId: string): Promise<string | null> {
    return this.envelopes.get(runId) ?? null;
  }

  async runsWithoutRecord(repo: string, limit: number): Promise<RunRow[]> {
    return [...this.runs.values()]
      .filter((r) => r.repo === repo && r.status === RunStatus.completed && !this.envelopes.has(r.id))
      .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0) || a.seq - b.seq)
      .slice(0, limit)
      .map((r) => this.out(r));
  }

  async settle(findingId: string, s: Settlement): Promise<FindingRow> {
    const f = this.findings.get(findingId);
    if (!f) throw new UnknownFindingError(findingId);
    if (f.settlement) throw new AlreadySettledError(findingId, f.settlement.by);
    f.settlement = copyJson(s);
    return copyJson(f);
  }

  async getRun(id: string): Promise<RunRow | null> {
    const r = this.runs.get(id);
    return r ? this.out(r) : null;
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    const exact = this.runs.get(idOrPrefix);
    if (exact) return this.out(exact);
    const hits = idOrPrefix === '' ? [] : [...this.runs.values()].filter((r) => r.id.startsWith(idOrPrefix));
    return hits.length === 1 ? this.out(hits[0]!) : null;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    const rows = [...this.runs.values()]
      .filter(
        (r) =>
          (!filter.status || filter.status.includes(r.status)) &&
          (filter.changeKey === undefined || r.changeKey === filter.changeKey) &&
          (filter.admissionKey === undefined || r.admissionKey === filter.admissionKey),
      )
      .sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq);
    return rows.slice(0, filter.limit ?? rows.length).map((r) => this.out(r));
  }

  async listRounds(runId: string): Promise<RoundRow[]> {
    return copyJson(this.rounds.filter((x) => x.runId === runId).sort((a, b) => a.round - b.round));
  }

  async listStages(runId: string): Promise<StageRow[]> {
    return copyJson(
      this.stages
        .filter((s) => s.runId === runId)
        .sort((a, b) => a.round - b.round || stageRank(a.stage) - stageRank(b.stage)),
    ).map(parseStageRow);
  }

  async recordJudgement(
    j: Omit<JudgementRow, 'recordedAt'>,
  ): Promise<{ inserted: boolean; judgement: JudgementRow }> {
    if (!this.runs.has(j.runId)) throw new UnknownRunError(j.runId);
    const had = this.judgements.get(j.callKey);
    if (had) return { inserted: false, judgement: copyJson(had) };
    const row = { ...copyJson(j), recordedAt: this.now() };
    this.judgements.set(j.callKey, row);
    return { inserted: true, judgement: copyJson(row) };
  }

  async listJudgements(runId: string): Promise<JudgementRow[]> {
    return copyJson([...this.judgements.values()].filter((j) => j.runId === runId));
  }

  async listVerdicts(runId: string): Promise<VerdictRow[]> {
    return copyJson([...this.verdicts.values()].filter((v) => v.runId === runId)).map(parseVerdictRow);
  }

  async reusableVerdict(repo: string, reuseKey: string): Promise<VerdictRow | null> {
    // Insertion order is recording order: the first one recorded answers, as in the SQL stores.
    for (const v of this.verdicts.values())
      if (v.reuseKey === reuseKey && this.runs.get(v.runId)?.repo === repo)
        return parseVerdictRow(copyJson(v));
    return null;
  }

  async listVerdictsForChange(changeKey: string): Promise<VerdictRow[]> {
    return copyJson(
      [...this.verdicts.values()].filter((v) => this.runs.get(v.runId)?.changeKey === changeKey),
    ).map(parseVerdictRow);
  }

  async listAttempts(runId: string): Promise<AttemptRow[]> {
    return copyJson(this.attempts.filter((a) => a.runId === runId));
  }

  async listFindings(runId: string): Promise<FindingRow[]> {
    return copyJson([...this.findings.values()].filter((f) => f.runId === runId));
  }

  async getFinding(idOrPrefix: string): Promise<FindingRow | null> {
    const exact = this.findings.get(idOrPrefix);
    if (exact) return copyJson(exact);
    const hits =
      idOrPrefix === '' ? [] : [...this.findings.values()].filter((f) => f.id.startsWith(idOrPrefix));
    return hits.length === 1 ? copyJson(hits[0]!) : null;
  }

  private take(r: RunRow, owner: LeaseOwner, ttlMs: number, now: number): Lease {
    assertTransition(r.status, RunStatus.running, r.id);
    r.fencingToken++;
    r.status = RunStatus.running;
    r.leaseOwner = copyJson(owner);
    r.leaseExpiresAt = now + ttlMs;
    r.updatedAt = now;
    return { runId: r.id, token: r.fencingToken, owner: copyJson(owner), expiresAt: now + ttlMs };
  }

  private fenced(lease: Lease): RunRow {
    const r = this.runs.get(lease.runId);
    checkFence(lease, r);
    return r!;
  }

  /** Core's table decides before anything of the run changes. */
  private end(r: RunRow, end: RunEnd): void {
    assertTransition(r.status, end.status, r.id);
    const now = this.now();
    Object.assign(r, {
      status: end.status,
      outcome: end.outcome,
      stopReason: end.stopReason,
      reason: end.reason,
      detail: end.detail,
      leaseOwner: null,
      leaseExpiresAt: null,
      endedAt: now,
      updatedAt: now,
    });
  }

  private findAttempt(runId: string, callKey: string, attemptNo: number): AttemptRow | undefined {
    return this.attempts.find((a) => a.runId === runId && a.callKey === callKey && a.attemptNo === attemptNo);
  }

  private out(r: RunRow & { budgetUsd?: number; seq?: number; revisionKey?: string }): RunRow {
    const { budgetUsd: _b, seq: _s, revisionKey: _k, ...row } = r;
    return copyJson(row);
  }
}
