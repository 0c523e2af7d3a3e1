/**
 * The shared ledger on PostgreSQL, for many workers on many machines.
 * Leases are judged on the database clock; claims use FOR UPDATE SKIP LOCKED;
 * fenced writes lock the run row (FOR UPDATE) before checking its token, so a
 * takeover waits for an in-flight write instead of interleaving with it.
 */
import pg from 'pg';
import type {
  AttemptClass,
  AttemptStart,
  FindingRow,
  JudgementRow,
  Lease,
  LeaseOwner,
  RunRow,
  Settlement,
} from '../../core/ledger.js';
import { assertTransition } from '../../core/run-state.js';
import type { NewVerdict, StageRow, VerdictRow } from '../../core/stage-results.js';
import { RunStatus } from '../../core/types.js';
import type {
  AdmitInput,
  AdmitResult,
  RecordedVerdict,
  RunEnd,
  RunFilter,
  StageCompletion,
  Store,
  VerdictToRecord,
} from '../../ports/store.js';
import {
  AlreadySettledError,
  LedgerConflictError,
  StageConflictError,
  StoreUnavailableError,
  UnknownFindingError,
  UnknownRunError,
} from '../errors.js';
import { JUDGEMENT_COLUMNS, judgementValues, VERDICT_COLUMNS, verdictValues } from '../shared/inserts.js';
import {
  gateColumn,
  type Raw,
  recordedStage,
  toAttempt,
  toFinding,
  toJudgement,
  toRound,
  toRun,
  toStage,
  toVerdict,
} from '../shared/rows.js';
import {
  admissionCost,
  attemptNeverBegun,
  checkFence,
  checkRunEnd,
  hasLimits,
  limitVerdict,
  planAdmission,
  STAGE_RANK_SQL,
  sameJson,
  toJson,
} from '../shared/rules.js';
import { ACTIVE_SQL, canMoveInto, claimableSql, HELD_SQL, statusIn } from '../shared/status-sql.js';
import { PgDeliveries } from './deliveries.js';
import { mapPgFault } from './faults.js';
import { ADMIT_LOCK, migratePostgres } from './migrate.js';

type Q = pg.PoolClient | pg.Pool;

const NOW = 'revloop_now_ms()';
const RUN = 'SELECT r.*, s.snapshot FROM runs r JOIN snapshots s ON s.snapshot_key = r.snapshot_key';
const FINDING = `SELECT f.*, st.by AS s_by, st.decision AS s_decision, st.note AS s_note, st.at AS s_at,
  st.origin AS s_origin
  FROM findings f LEFT JOIN settlements st ON st.finding_id = f.id`;
const HELD = HELD_SQL;
/** A revision's newest run (parameter: its key): the highest rerun, then the latest made. */
const NEWEST_OF_REVISION = `${RUN} WHERE r.revision_key = $1 OR r.admission_key = $1
  ORDER BY r.rerun DESC, r.created_at DESC, r.seq DESC LIMIT 1`;
/** The runs a claim may take; `repo` is the placeholder of the repository filter (null: any). */
const claimable = (repo: string): string => claimableSql(NOW, `${repo}::text`);

/** JSON comes back as text (parsed once, by the row mappers) and bigint as a number (epoch ms fit). */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 114 || oid === 3802) return (v: string) => v;
    if (oid === 20) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

export interface PostgresStoreOptions {
  /** Pool size per process (default 4). */
  poolSize?: number | undefined;
  /**
   * How long a transaction of this store may sit idle before the server ends
   * it (default 10 s). Every transaction here is a few statements with no wait
   * between them; one left open is a frozen or paused process, and its row
   * locks would otherwise keep its run from every taker (claims skip locked
   * rows) and an admission lock from every admitter, for as long as its
   * connection lives.
   */
  idleInTransactionMs?: number | undefined;
  /** How long one statement may take before the server (and, failing that, the client) ends it (default 60 s). */
  statementTimeoutMs?: number | undefined;
}

/** Connects, migrates (under an advisory lock) and returns the store; connection faults are `store_unavailable`. */
export async function openPostgresStore(
  url: string,
  opts: PostgresStoreOptions = {},
): Promise<PostgresStore> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 4,
    connectionTimeoutMillis: 10_000,
    // A partitioned server sends nothing, not even a reset: keepalive probes notice a dead idle
    // connection, and the timeouts end a statement whose answer never comes, within a bound
    // rather than the kernel's (minutes). Every statement of the ledger is short.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    statement_timeout: opts.statementTimeoutMs ?? 60_000,
    query_timeout: (opts.statementTimeoutMs ?? 60_000) + 15_000,
    types,
  });
  // An idle client dropped by the server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  try {
    await migratePostgres(pool);
  } catch (err) {
    await pool.end().catch(() => {});
    throw mapPgFault(err, url);
  }
  return new PostgresStore(pool, url, opts.idleInTransactionMs ?? 10_000);
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;

  /** Opens each transaction and bounds its idle time, in one round trip (SET LOCAL also holds behind a transaction-mode pooler). */
  private readonly begin: string;
  readonly deliveries: PgDeliveries;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    idleInTransactionMs: number,
  ) {
    this.begin = `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.round(idleInTransactionMs))}`;
    this.deliveries = new PgDeliveries({
      pool: () => this.pool,
      tx: (fn) => this.tx(fn),
      guard: (fn) => this.guard(fn),
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async admit(input: AdmitInput): Promise<AdmitResult> {
    return this.guard(async () => {
      // A revision whose newest run answers is answered without any lock: that answer stays
      // true (invariant 3). Named, so each pooled connection parses and plans it once: most
      // admissions of a busy queue end here.
      const key = [input.admissionKey];
      const newest = (
        await this.pool
          .query({ name: 'revloop-admit-newest', text: NEWEST_OF_REVISION, values: key })
          .catch((err: { code?: string }) => {
            // A newer revloop's migration changed the runs table under the plan: ask unnamed.
            if (err.code === '0A000') return this.pool.query(NEWEST_OF_REVISION, key);
            throw err;
          })
      ).rows[0] as Raw | undefined;
      const seen = planAdmission(input, newest ? toRun(newest) : null);
      if (seen.kind === 'existing') return seen;
      const limited = hasLimits(input);
      return this.tx(async (c) => {
        // Limits need every admission serialised (exclusive); without them, admissions only exclude limited ones.
        await c.query(`SELECT pg_advisory_xact_lock${limited ? '' : '_shared'}(${ADMIT_LOCK})`);
        const again = await this.one(c, NEWEST_OF_REVISION, key);
        const plan = planAdmission(input, again ? toRun(again) : null);
        if (plan.kind === 'existing') return plan;
        if (limited) {
          const w = input.limits?.costWindowSeconds;
          const u = await this.one(
            c,
            `SELECT (SELECT count(*) FROM runs WHERE ${ACTIVE_SQL} AND ($2::text IS NULL OR repo = $2)) AS active,
               (SELECT coalesce(sum(CASE WHEN ${ACTIVE_SQL} THEN budget_usd ELSE cost_usd END), 0)
                  FROM runs WHERE ($1::bigint IS NULL OR created_at >= ${NOW} - $1::bigint)
                    AND ($2::text IS NULL OR repo = $2)) AS usd`,
            [w === undefined ? null : Math.round(w * 1000), input.limits?.perRepository ? input.repo : null],
          );
          const deferred = limitVerdict(input, { active: Number(u?.active), committedUsd: Number(u?.usd) });
          if (deferred) return deferred;
        }
        await c.query(
          `INSERT INTO changes (change_key, repo, first_seen_at) VALUES ($1, $2, ${NOW}) ON CONFLICT DO NOTHING`,
          [input.changeKey, input.repo],
        );
        await c.query(
          `INSERT INTO snapshots (snapshot_key, snapshot, created_at) VALUES ($1, $2::jsonb, ${NOW}) ON CONFLICT DO NOTHING`,
          [input.snapshotKey, toJson(input.snapshot)],
        );
        // Two admitters under the shared lock may both plan the same key: the unique index
        // lets one insert, and the other answers with its run.
        const ins = await c.query(
          `INSERT INTO runs (id, admission_key, revision_key, rerun, rerun_by, rerun_reason, change_key, repo,
             snapshot_key, status, head, budget_usd, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, ${NOW}, ${NOW})
           ON CONFLICT (admission_key) WHERE ${HELD} DO NOTHING RETURNING id`,
          [
            input.runId,
            plan.admissionKey,
            input.admissionKey,
            plan.rerun?.ordinal ?? 0,
            plan.rerun?.by ?? null,
            plan.rerun?.reason ?? null,
            input.changeKey,
            input.repo,
            input.snapshotKey,
            RunStatus.queued,
            input.snapshot.head,
            admissionCost(input),
          ],
        );
        const row = await this.one(c, `${RUN} WHERE r.admission_key = $1 AND r.${HELD}`, [plan.admissionKey]);
        return { kind: ins.rowCount === 1 ? 'created' : 'existing', run: toRun(row!) };
      });
    });
  }

  async acquireLease(
    runId: string,
    owner: LeaseOwner,
    ttlMs: number,
    ifToken?: number,
  ): Promise<Lease | null> {
    return this.guard(async () => {
      const r = await this.one(
        this.pool,
        `UPDATE runs SET status = '${RunStatus.running}', fencing_token = fencing_token + 1, lease_owner = $2::jsonb,
           lease_expires_at = ${NOW} + $3, updated_at = ${NOW}
         WHERE id = $1 AND ${canMoveInto(RunStatus.running)}
           AND (lease_owner IS NULL OR lease_expires_at <= ${NOW} OR fencing_token = $4)
         RETURNING fencing_token, lease_expires_at`,
        [runId, toJson(owner), Math.round(ttlMs), ifToken ?? null],
      );
      return r
        ? { runId, token: Number(r.fencing_token), owner, expiresAt: Number(r.lease_expires_at) }
        : null;
    });
  }

  async claimNext(owner: LeaseOwner, ttlMs: number, repo?: string): Promise<Lease | null> {
    return this.guard(async () => {
      const r = await this.one(
        this.pool,
        `WITH next AS (
           SELECT id FROM runs WHERE ${claimable('$3')}
           ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE runs r SET status = '${RunStatus.running}', fencing_token = r.fencing_token + 1, lease_owner = $1::jsonb,
           lease_expires_at = ${NOW} + $2, updated_at = ${NOW}
         FROM next WHERE r.id = next.id
         RETURNING r.id, r.fencing_token, r.lease_expires_at`,
        [toJson(owner), Math.round(ttlMs), repo ?? null],
      );
      return r
        ? {
            runId: String(r.id),
            token: Number(r.fencing_token),
            owner,
            expiresAt: Number(r.lease_expires_at),
          }
        : null;
    });
  }

  async hasClaimable(repo?: string): Promise<boolean> {
    return this.guard(
      async () =>
        (await this.all(`SELECT 1 FROM runs WHERE ${claimable('$1')} LIMIT 1`, [repo ?? null])).length > 0,
    );
  }

  async heartbeat(lease: Lease, ttlMs: number): Promise<Lease> {
    return this.fenced(lease, async (c) => {
      const r = await this.one(
        c,
        `UPDATE runs SET lease_owner = $2::jsonb, lease_expires_at = ${NOW} + $3, updated_at = ${NOW}
         WHERE id = $1 RETURNING lease_expires_at`,
        [lease.runId, toJson(lease.owner), Math.round(ttlMs)],
      );
      return { ...lease, expiresAt: Number(r!.lease_expires_at) };
    });
  }

  async releaseLease(lease: Lease): Promise<void> {
    await this.guard(() =>
      this.pool.query(
        `UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL, updated_at = ${NOW}
         WHERE id = $1 AND fencing_token = $2`,
        [lease.runId, lease.token],
      ),
    );
  }

  async beginRound(lease: Lease, round: number, head: string): Promise<void> {
    await this.fenced(lease, async (c) => {
      const had = await this.one(c, 'SELECT head FROM rounds WHERE run_id = $1 AND round = $2', [
        lease.runId,
        round,
      ]);
      if (had && had.head !== head)
        throw new LedgerConflictError(
          `run ${lease.runId}: round ${round} was begun at ${had.head}, not ${head}`,
        );
      if (!had)
        await c.query(`INSERT INTO rounds (run_id, round, head, started_at) VALUES ($1, $2, $3, ${NOW})`, [
          lease.runId,
          round,
          head,
        ]);
    });
  }

  async beginAttempt(lease: Lease, a: AttemptStart): Promise<void> {
    await this.fenced(lease, (c) =>
      c.query(
        `INSERT INTO attempts (run_id, call_key, attempt_no, round, stage, role, reviewer, class, started_at, confined)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'started', ${NOW}, $8) ON CONFLICT DO NOTHING`,
        [lease.runId, a.callKey, a.attemptNo, a.round, a.stage, a.role, a.reviewer, a.confined === true],
      ),
    );
  }

  async endAttempt(
    lease: Lease,
    callKey: string,
    attemptNo: number,
    cls: AttemptClass,
    detail: string | null,
    spentUsd = 0,
  ): Promise<void> {
    await this.fenced(lease, async (c) => {
      await this.endAttemptIn(c, lease.runId, callKey, attemptNo, cls, detail);
      if (spentUsd > 0)
        await c.query('UPDATE runs SET cost_usd = cost_usd + $1 WHERE id = $2', [spentUsd, lease.runId]);
    });
  }

  /** Ends an attempt inside the caller's transaction. */
  private async endAttemptIn(
    c: pg.PoolClient,
    runId: string,
    callKey: string,
    attemptNo: number,
    cls: AttemptClass,
    detail: string | null,
  ): Promise<void> {
    const r = await c.query(
      `UPDATE attempts SET class = $4, detail = $5, ended_at = ${NOW}
       WHERE run_id = $1 AND call_key = $2 AND attempt_no = $3`,
      [runId, callKey, attemptNo, cls, detail],
    );
    if (r.rowCount === 0) throw attemptNeverBegun(runId, callKey, attemptNo);
  }

  async markInterruptedAttempts(lease: Lease): Promise<number> {
    return this.fenced(lease, async (c) => {
      const r = await c.query(
        `UPDATE attempts SET class = 'unknown', ended_at = ${NOW} WHERE run_id = $1 AND class = 'started'`,
        [lease.runId],
      );
      return r.rowCount ?? 0;
    });
  }

  async recordVerdict(
    lease: Lease,
    v: NewVerdict,
    endsAttempt?: number,
    attemptDetail?: string | null,
  ): Promise<{ inserted: boolean; verdict: VerdictRow }> {
    return this.fenced(lease, (c) =>
      this.recordVerdictIn(c, lease, { verdict: v, endsAttempt, attemptDetail }),
    );
  }

  async recordVerdicts(lease: Lease, items: readonly VerdictToRecord[]): Promise<RecordedVerdict[]> {
    // One transaction, so one commit (one WAL flush) for the whole batch.
    return this.fenced(lease, async (c) => {
      const out: RecordedVerdict[] = [];
      for (const item of items) out.push(await this.recordVerdictIn(c, lease, item));
      return out;
    });
  }

  /** One verdict inside the caller's transaction. */
  private async recordVerdictIn(
    c: pg.PoolClient,
    lease: Lease,
    { verdict: v, endsAttempt, attemptDetail }: VerdictToRecord,
  ): Promise<RecordedVerdict> {
    if (endsAttempt !== undefined)
      await this.endAttemptIn(c, lease.runId, v.callKey, endsAttempt, 'ok', attemptDetail ?? null);
    const ins = await c.query(
      `INSERT INTO verdicts (${VERDICT_COLUMNS}, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13::jsonb, ${NOW})
         ON CONFLICT (call_key) DO NOTHING`,
      verdictValues(v),
    );
    // Invariant 12: every cent is on the run the moment its verdict is (see the SQLite store).
    if (ins.rowCount === 1 && v.costUsd > 0)
      await c.query('UPDATE runs SET cost_usd = cost_usd + $1 WHERE id = $2', [v.costUsd, lease.runId]);
    const row = await this.one(c, 'SELECT * FROM verdicts WHERE call_key = $1', [v.callKey]);
    return { inserted: ins.rowCount === 1, verdict: toVerdict(row!) };
  }

  async completeStage(lease: Lease, s: StageCompletion): Promise<StageRow> {
    return this.fenced(lease, async (c) => {
      const had = await this.one(c, 'SELECT * FROM stages WHERE run_id = $1 AND round = $2 AND stage = $3', [
        lease.runId,
        s.round,
        s.stage,
      ]);
      if (had) {
        if (!sameJson(JSON.parse(String(had.result)), s.result ?? null))
          throw new StageConflictError(lease.runId, s.round, s.stage);
        return toStage(had);
      }
      const result = toJson(s.result);
      const inserted = await c.query(
        `INSERT INTO stages (run_id, round, stage, snapshot_key, result, completed_at)
         SELECT id, $2, $3, snapshot_key, $4::jsonb, ${NOW} FROM runs WHERE id = $1
         RETURNING run_id, snapshot_key, completed_at`,
        [lease.runId, s.round, s.stage, result],
      );
      for (const f of s.findings ?? [])
        await c.query(
          `INSERT INTO findings (id, run_id, round, reviewer, revision, call_key, idx, reported, severity, gate, content)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10::jsonb, $11)`,
          [
            f.id,
            lease.runId,
            f.round,
            f.reviewer,
            f.revision,
            f.callKey,
            f.index,
            toJson(f.reported),
            f.severity,
            toJson(gateColumn(f)),
            f.content,
          ],
        );
      const patch = async (id: string, column: 'refutation' | 'dispute', value: unknown) => {
        const r = await c.query(`UPDATE findings SET ${column} = $1::jsonb WHERE id = $2 AND run_id = $3`, [
          toJson(value),
          id,
          lease.runId,
        ]);
        if (r.rowCount === 0) throw new UnknownFindingError(id);
      };
      for (const x of s.refutations ?? []) await patch(x.findingId, 'refutation', x.refutation);
      for (const x of s.disputes ?? []) await patch(x.findingId, 'dispute', { reason: x.reason });
      for (const x of s.settlements ?? []) {
        const mine = await c.query('SELECT 1 FROM findings WHERE id = $1 AND run_id = $2', [
          x.findingId,
          lease.runId,
        ]);
        if (mine.rowCount === 0) throw new UnknownFindingError(x.findingId);
        const st = x.settlement;
        await c.query(
          `INSERT INTO settlements (finding_id, by, decision, note, at, origin) VALUES ($1, $2, $3, $4, $5, $6::jsonb)
           ON CONFLICT (finding_id) DO NOTHING`,
          [x.findingId, st.by, st.decision, st.note, st.at, st.origin ? toJson(st.origin) : null],
        );
      }
      await c.query(
        `UPDATE runs SET head = coalesce($2, head), cost_usd = coalesce($3, cost_usd),
           rounds_done = coalesce($4, rounds_done), updated_at = ${NOW} WHERE id = $1`,
        [lease.runId, s.run?.head ?? null, s.run?.costUsd ?? null, s.run?.roundsDone ?? null],
      );
      return recordedStage(s, inserted.rows[0], result);
    });
  }

  async finishRun(lease: Lease, end: RunEnd): Promise<RunRow> {
    return this.fenced(lease, async (c, from) => {
      checkRunEnd(lease.runId, end);
      await this.end(c, lease.runId, from, end, false);
      return this.run(c, lease.runId);
    });
  }

  async setRecordPath(runId: string, path: string): Promise<void> {
    await this.guard(async () => {
      const r = await this.pool.query(`UPDATE runs SET record_path = $2, updated_at = ${NOW} WHERE id = $1`, [
        runId,
        path,
      ]);
      if (r.rowCount === 0) throw new UnknownRunError(runId);
    });
  }

  async putFixBundle(lease: Lease, commit: string, bundle: Buffer): Promise<void> {
    await this.fenced(lease, (c) =>
      c.query(
        `INSERT INTO fix_bundles (run_id, commit_id, bundle, recorded_at) VALUES ($1, $2, $3, ${NOW})
         ON CONFLICT (run_id, commit_id) DO NOTHING`,
        [lease.runId, commit, bundle],
      ),
    );
  }

  async getFixBundle(runId: string, commit: string): Promise<Buffer | null> {
    return this.guard(async () => {
      const [row] = await this.all('SELECT bundle FROM fix_bundles WHERE run_id = $1 AND commit_id = $2', [
        runId,
        commit,
      ]);
      return row ? Buffer.from(row.bundle as Uint8Array) : null;
    });
  }

  async putRecordEnvelope(runId: string, envelope: string): Promise<string> {
    return this.guard(async () => {
      const r = await this.pool.query(
        `INSERT INTO run_records (run_id, envelope, recorded_at) SELECT id, $2, ${NOW} FROM runs WHERE id = $1
         ON CONFLICT (run_id) DO NOTHING`,
        [runId, envelope],
      );
      const [row] = await this.all('SELECT envelope FROM run_records WHERE run_id = $1', [runId]);
      if (!row) throw new UnknownRunError(runId);
      return r.rowCount === 1 ? envelope : String(row.envelope);
    });
  }

  async getRecordEnvelope(runId: string): Promise<string | null> {
    return this.guard(async () => {
      const [row] = await this.all('SELECT envelope FROM run_records WHERE run_id = $1', [runId]);
      return row ? String(row.envelope) : null;
    });
  }

  async runsWithoutRecord(repo: string, limit: number): Promise<RunRow[]> {
    return this.guard(async () =>
      (
        await this.all(
          `${RUN} WHERE r.repo = $1 AND ${statusIn([RunStatus.completed], 'r.status')}
             AND NOT EXISTS (SELECT 1 FROM run_records x WHERE x.run_id = r.id)
           ORDER BY r.ended_at, r.seq LIMIT $2`,
          [repo, limit],
        )
      ).map(toRun),
    );
  }

  async settle(findingId: string, s: Settlement): Promise<FindingRow> {
    return this.guard(() =>
      this.tx(async (c) => {
        const f = await this.one(c, 'SELECT id FROM findings WHERE id = $1 FOR UPDATE', [findingId]);
        if (!f) throw new UnknownFindingError(findingId);
        const ins = await c.query(
          `INSERT INTO settlements (finding_id, by, decision, note, at, origin) VALUES ($1, $2, $3, $4, $5, $6::jsonb)
           ON CONFLICT (finding_id) DO NOTHING`,
          [findingId, s.by, s.decision, s.note, s.at, s.origin ? toJson(s.origin) : null],
        );
        const row = toFinding((await this.one(c, `${FINDING} WHERE f.id = $1`, [findingId]))!);
        if (ins.rowCount === 0) throw new AlreadySettledError(findingId, row.settlement?.by ?? 'someone');
        return row;
      }),
    );
  }

  async getRun(id: string): Promise<RunRow | null> {
    return this.guard(async () => {
      const r = await this.one(this.pool, `${RUN} WHERE r.id = $1`, [id]);
      return r ? toRun(r) : null;
    });
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    return this.guard(async () => {
      const exact = await this.one(this.pool, `${RUN} WHERE r.id = $1`, [idOrPrefix]);
      if (exact) return toRun(exact);
      if (idOrPrefix === '') return null;
      const hits = await this.all(`${RUN} WHERE starts_with(r.id, $1) LIMIT 2`, [idOrPrefix]);
      return hits.length === 1 ? toRun(hits[0]!) : null;
    });
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    return this.guard(async () => {
      const rows = await this.all(
        `${RUN} WHERE ($1::text[] IS NULL OR r.status = ANY($1)) AND ($2::text IS NULL OR r.change_key = $2)
           AND ($3::text IS NULL OR r.admission_key = $3)
         ORDER BY r.created_at DESC, r.seq DESC LIMIT $4`,
        [filter.status ?? null, filter.changeKey ?? null, filter.admissionKey ?? null, filter.limit ?? null],
      );
      return rows.map(toRun);
    });
  }

  async listRounds(runId: string) {
    return this.guard(async () =>
      (await this.all('SELECT * FROM rounds WHERE run_id = $1 ORDER BY round', [runId])).map(toRound),
    );
  }

  async listStages(runId: string) {
    return this.guard(async () =>
      (
        await this.all(`SELECT * FROM stages WHERE run_id = $1 ORDER BY round, ${STAGE_RANK_SQL}`, [runId])
      ).map(toStage),
    );
  }

  async recordJudgement(
    j: Omit<JudgementRow, 'recordedAt'>,
  ): Promise<{ inserted: boolean; judgement: JudgementRow }> {
    return this.guard(() =>
      this.tx(async (c) => {
        if (!(await this.one(c, 'SELECT id FROM runs WHERE id = $1', [j.runId])))
          throw new UnknownRunError(j.runId);
        const ins = await c.query(
          `INSERT INTO judgements (${JUDGEMENT_COLUMNS}, recorded_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, ${NOW}) ON CONFLICT (call_key) DO NOTHING`,
          judgementValues(j),
        );
        const row = await this.one(c, 'SELECT * FROM judgements WHERE call_key = $1', [j.callKey]);
        return { inserted: (ins.rowCount ?? 0) > 0, judgement: toJudgement(row!) };
      }),
    );
  }

  async listJudgements(runId: string) {
    return this.guard(async () =>
      (await this.all('SELECT * FROM judgements WHERE run_id = $1 ORDER BY seq', [runId])).map(toJudgement),
    );
  }

  async listVerdicts(runId: string) {
    return this.guard(async () =>
      (await this.all('SELECT * FROM verdicts WHERE run_id = $1 ORDER BY seq', [runId])).map(toVerdict),
    );
  }

  async reusableVerdict(repo: string, reuseKey: string) {
    return this.guard(async () => {
      const [row] = await this.all(
        `SELECT v.* FROM verdicts v JOIN runs r ON r.id = v.run_id
          WHERE v.reuse_key = $1 AND r.repo = $2 ORDER BY v.seq LIMIT 1`,
        [reuseKey, repo],
      );
      return row ? toVerdict(row) : null;
    });
  }

  async listVerdictsForChange(changeKey: string) {
    return this.guard(async () =>
      (
        await this.all(
          'SELECT v.* FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE r.change_key = $1 ORDER BY v.seq',
          [changeKey],
        )
      ).map(toVerdict),
    );
  }

  async listAttempts(runId: string) {
    return this.guard(async () =>
      (await this.all('SELECT * FROM attempts WHERE run_id = $1 ORDER BY seq', [runId])).map(toAttempt),
    );
  }

  async listFindings(runId: string) {
    return this.guard(async () =>
      (await this.all(`${FINDING} WHERE f.run_id = $1 ORDER BY f.seq`, [runId])).map(toFinding),
    );
  }

  async getFinding(idOrPrefix: string): Promise<FindingRow | null> {
    return this.guard(async () => {
      const exact = await this.one(this.pool, `${FINDING} WHERE f.id = $1`, [idOrPrefix]);
      if (exact) return toFinding(exact);
      if (idOrPrefix === '') return null;
      const hits = await this.all(`${FINDING} WHERE starts_with(f.id, $1) LIMIT 2`, [idOrPrefix]);
      return hits.length === 1 ? toFinding(hits[0]!) : null;
    });
  }

  /** Ends a run that is `from` now (read under its row lock): core's table decides, the SQL guard repeats it. */
  private async end(c: Q, runId: string, from: RunStatus, end: RunEnd, newToken: boolean): Promise<void> {
    assertTransition(from, end.status, runId);
    await c.query(
      `UPDATE runs SET status = $2, outcome = $3, stop_reason = $4, reason = $5, detail = $6, lease_owner = NULL,
         lease_expires_at = NULL, ended_at = ${NOW}, updated_at = ${NOW}, fencing_token = fencing_token + $7
       WHERE id = $1 AND ${canMoveInto(end.status)}`,
      [runId, end.status, end.outcome, end.stopReason, end.reason, end.detail, newToken ? 1 : 0],
    );
  }

  private async run(c: Q, id: string): Promise<RunRow> {
    return toRun((await this.one(c, `${RUN} WHERE r.id = $1`, [id]))!);
  }

  private async one(c: Q, sql: string, args: unknown[] = []): Promise<Raw | undefined> {
    return (await c.query(sql, args)).rows[0] as Raw | undefined;
  }

  private async all(sql: string, args: unknown[] = []): Promise<Raw[]> {
    return (await this.pool.query(sql, args)).rows as Raw[];
  }

  /** A fenced write: the run row is locked, its token checked (invariant 13), then `fn` runs, all in one transaction. */
  private async fenced<T>(lease: Lease, fn: (c: pg.PoolClient, status: RunStatus) => Promise<T>): Promise<T> {
    try {
      return await this.guard(() =>
        this.tx(async (c) => {
          const r = await this.one(c, 'SELECT fencing_token, status FROM runs WHERE id = $1 FOR UPDATE', [
            lease.runId,
          ]);
          checkFence(lease, r && { fencingToken: Number(r.fencing_token), status: r.status as RunStatus });
          return fn(c, r!.status as RunStatus);
        }),
      );
    } catch (err) {
      // A write cut off with its connection (the server ended a transaction a frozen owner left
      // open) is moot once the run is another owner's: say so, as a write after the takeover would.
      if (err instanceof StoreUnavailableError) await this.refence(lease);
      throw err;
    }
  }

  /** Throws FencedOutError when another owner's token holds the run now; a fault of its own leaves the caller's error. */
  private async refence(lease: Lease): Promise<void> {
    const r = await this.one(this.pool, 'SELECT fencing_token, status FROM runs WHERE id = $1', [
      lease.runId,
    ]).catch(() => null);
    // Only a moved token: the run ending under the same token may have been this very write.
    if (r && Number(r.fencing_token) !== lease.token)
      checkFence(lease, { fencingToken: Number(r.fencing_token), status: r.status as RunStatus });
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    let broken = false;
    // The pool listens for a checked-out client's errors no longer: a connection the server ends
    // mid-transaction would throw from the socket as an unhandled 'error'. The queries report it.
    const onError = () => {
      broken = true;
    };
    c.on('error', onError);
    try {
      await c.query(this.begin);
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      c.off('error', onError);
      c.release(broken);
    }
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if ((err as { code?: unknown })?.code === '23505')
        throw new LedgerConflictError(`ledger: ${(err as Error).message}`);
      throw mapPgFault(err, this.url);
    }
  }
}
