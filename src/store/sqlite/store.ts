/**
 * The embedded ledger: one SQLite file in WAL mode with synchronous=FULL.
 * Every write is an IMMEDIATE transaction, so it takes the write lock before
 * it reads what it checks (deferred ones lost updates under racing processes),
 * and every fenced write checks the run's token inside that transaction.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
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
import { isTerminal, RunStatus } from '../../core/types.js';
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
  StoreCorruptError,
  StoreReadonlyError,
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
  costWindowStart,
  hasLimits,
  limitVerdict,
  planAdmission,
  STAGE_RANK_SQL,
  sameJson,
  toJson,
} from '../shared/rules.js';
import { ACTIVE_SQL, canMoveInto, claimableSql, statusIn } from '../shared/status-sql.js';
import { SqliteDeliveries } from './deliveries.js';
import { mapSqliteFault } from './faults.js';
import { lostLog } from './lost-log.js';
import { migrateSqlite, needsMigration } from './migrate.js';

export interface SqliteStoreOptions {
  now?: (() => number) | undefined;
  /** How long a write waits for another process's lock before `store_locked` (default 5000 ms). */
  busyTimeoutMs?: number | undefined;
  /** Caps the file's size in pages (a quota; tests use it to provoke SQLITE_FULL). */
  maxPageCount?: number | undefined;
  /** Open an existing ledger for reading only (status, export, replay): no migration, no pragma writes. */
  readonly?: boolean | undefined;
}

const RUN = `SELECT r.*, s.snapshot FROM runs r JOIN snapshots s ON s.snapshot_key = r.snapshot_key`;
const FINDING = `SELECT f.*, st.by AS s_by, st.decision AS s_decision, st.note AS s_note, st.at AS s_at,
  st.origin AS s_origin
  FROM findings f LEFT JOIN settlements st ON st.finding_id = f.id`;
/** A revision's newest run (parameters: its key, twice): the highest rerun, then the latest made. */
const NEWEST_OF_REVISION = `${RUN} WHERE r.revision_key = ? OR r.admission_key = ?
  ORDER BY r.rerun DESC, r.created_at DESC, r.rowid DESC LIMIT 1`;
/** The runs `claimNext` may take (parameters: now, repo, repo). */
const CLAIMABLE = claimableSql('?', '?');

/** Opens (creating if needed) and migrates the ledger at `path`; refuses a corrupt file. */
export function openSqliteStore(path: string, opts: SqliteStoreOptions = {}): SqliteStore {
  let db: Database.Database | undefined;
  try {
    const busy = opts.busyTimeoutMs ?? 5000;
    const lost = lostLog(path);
    if (lost)
      throw new StoreCorruptError(
        path,
        `its write-ahead log ${path}-wal is ${lost.actual === 0 ? 'missing' : 'cut short'}: ${lost.actual} of the ${lost.expected} bytes its index ${path}-shm records, which hold its latest commits; put the log back, or move the ledger and both files aside to start a new one`,
      );
    // A read of a ledger nobody has written (none yet, or an empty file with no log beside it)
    // reads an empty one in memory: `status` in a fresh clone must not make `.revloop/` appear.
    if (opts.readonly && !holdsLedger(path))
      return new SqliteStore(emptyLedger(), path, opts.now ?? Date.now);
    if (opts.readonly) {
      db = openForReading(path, busy);
      if (needsMigration(db))
        throw new StoreReadonlyError(path, 'it needs an upgrade, which a read-only open does not make');
      return new SqliteStore(db, path, opts.now ?? Date.now);
    }
    mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { timeout: busy });
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busy))}`);
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new StoreCorruptError(path, `quick_check: ${String(check)}`);
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    if (opts.maxPageCount !== undefined) db.pragma(`max_page_count = ${Math.floor(opts.maxPageCount)}`);
    migrateSqlite(db);
    return new SqliteStore(db, path, opts.now ?? Date.now);
  } catch (err) {
    db?.close();
    throw mapSqliteFault(err, path);
  }
}

const hasBytes = (file: string): boolean => existsSync(file) && statSync(file).size > 0;

/** Whether anything was ever written at `path`: a WAL ledger's first writes may sit in its log alone. */
const holdsLedger = (path: string): boolean =>
  hasBytes(path) || hasBytes(`${path}-wal`) || hasBytes(`${path}-journal`);

/** An empty ledger of the current schema, in memory (what a ledger nobody wrote holds). */
function emptyLedger(): Database.Database {
  const db = new Database(':memory:');
  migrateSqlite(db);
  return db;
}

/**
 * A read-only connection. SQLite opens a WAL ledger read-only in place only
 * when its `-shm` file exists or can be made; on a read-only file system after
 * a clean close neither holds, so with no WAL content pending (the main file
 * is then the whole ledger) it reads an in-memory copy, its header set back
 * to rollback mode (file-format bytes 18-19), which the in-memory copy needs.
 */
function openForReading(path: string, busy: number): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: busy });
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busy))}`);
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new StoreCorruptError(path, `quick_check: ${String(check)}`);
    return db;
  } catch (err) {
    db?.close();
    const code = String((err as { code?: unknown }).code ?? '');
    // A write killed before the ledger was in WAL mode (its creation, say) left a hot rollback
    // journal: the ledger's committed state is the main file with the journal rolled back,
    // which only a writer does. Its main file alone may hold half of that write, so it is not
    // read in its place either.
    if (code === 'SQLITE_READONLY_ROLLBACK' || hasBytes(`${path}-journal`))
      throw new StoreReadonlyError(
        path,
        `a write to it was interrupted (SQLite left its rollback journal ${path}-journal); the next command that writes the ledger (revloop review, resume or ui) rolls it back`,
      );
    if (!/^SQLITE_(CANTOPEN|READONLY)/.test(code) || hasBytes(`${path}-wal`)) throw err;
    const bytes = readFileSync(path);
    if (bytes.length > 19 && bytes[18] === 2 && bytes[19] === 2) bytes.fill(1, 18, 20);
    const copy = new Database(bytes, { readonly: true });
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') {
      copy.close();
      throw new StoreCorruptError(path, `quick_check: ${String(check)}`);
    }
    return copy;
  }
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly statements = new Map<string, Database.Statement>();

  readonly deliveries: SqliteDeliveries;

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
    private readonly now: () => number,
  ) {
    this.deliveries = new SqliteDeliveries({
      now: () => this.now(),
      one: (sql, ...args) => this.one(sql, ...args),
      all: (sql, ...args) => this.all(sql, ...args),
      exec: (sql, ...args) => this.exec(sql, ...args),
      write: (fn) => this.write(fn),
      read: (fn) => this.read(fn),
    });
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async admit(input: AdmitInput): Promise<AdmitResult> {
    const newest = () => {
      const r = this.one(NEWEST_OF_REVISION, input.admissionKey, input.admissionKey);
      return r ? toRun(r) : null;
    };
    // A revision whose newest run answers is answered by a WAL read, without the write lock:
    // that answer stays true.
    const seen = planAdmission(input, this.read(newest));
    if (seen.kind === 'existing') return seen;
    return this.write(() => {
      const plan = planAdmission(input, newest());
      if (plan.kind === 'existing') return plan;
      const now = this.now();
      if (hasLimits(input)) {
        const from = Math.max(costWindowStart(input, now), Number.MIN_SAFE_INTEGER);
        const repo = input.limits?.perRepository ? input.repo : null;
        const active = this.one(
          `SELECT count(*) AS n FROM runs WHERE ${ACTIVE_SQL} AND (? IS NULL OR repo = ?)`,
          repo,
          repo,
        );
        const cost = this.one(
          `SELECT coalesce(sum(CASE WHEN ${ACTIVE_SQL} THEN budget_usd ELSE cost_usd END), 0) AS usd
           FROM runs WHERE created_at >= ? AND (? IS NULL OR repo = ?)`,
          from,
          repo,
          repo,
        );
        const deferred = limitVerdict(input, { active: Number(active?.n), committedUsd: Number(cost?.usd) });
        if (deferred) return deferred;
      }
      this.exec(
        'INSERT OR IGNORE INTO changes (change_key, repo, first_seen_at) VALUES (?, ?, ?)',
        input.changeKey,
        input.repo,
        now,
      );
      this.exec(
        'INSERT OR IGNORE INTO snapshots (snapshot_key, snapshot, created_at) VALUES (?, ?, ?)',
        input.snapshotKey,
        toJson(input.snapshot),
        now,
      );
      this.exec(
        `INSERT INTO runs (id, admission_key, revision_key, rerun, rerun_by, rerun_reason, change_key, repo,
           snapshot_key, status, head, budget_usd, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        now,
        now,
      );
      return { kind: 'created', run: this.run(input.runId) };
    });
  }

  async acquireLease(
    runId: string,
    owner: LeaseOwner,
    ttlMs: number,
    ifToken?: number,
  ): Promise<Lease | null> {
    return this.write(() => {
      const r = this.one(
        'SELECT status, fencing_token, lease_owner, lease_expires_at FROM runs WHERE id = ?',
        runId,
      );
      if (!r || isTerminal(r.status as RunRow['status'])) return null;
      const now = this.now();
      const free = r.lease_owner === null || Number(r.lease_expires_at ?? 0) <= now;
      if (!free && !(ifToken !== undefined && Number(r.fencing_token) === ifToken)) return null;
      return this.take(runId, r.status as RunStatus, owner, ttlMs, now);
    });
  }

  async claimNext(owner: LeaseOwner, ttlMs: number, repo?: string): Promise<Lease | null> {
    return this.write(() => {
      const now = this.now();
      const r = this.one(
        `SELECT id, status FROM runs WHERE ${CLAIMABLE} ORDER BY created_at, rowid LIMIT 1`,
        now,
        repo ?? null,
        repo ?? null,
      );
      return r ? this.take(String(r.id), r.status as RunStatus, owner, ttlMs, now) : null;
    });
  }

  async hasClaimable(repo?: string): Promise<boolean> {
    return this.read(
      () =>
        this.one(
          `SELECT 1 AS one FROM runs WHERE ${CLAIMABLE} LIMIT 1`,
          this.now(),
          repo ?? null,
          repo ?? null,
        ) !== undefined,
    );
  }

  async heartbeat(lease: Lease, ttlMs: number): Promise<Lease> {
    return this.write(() => {
      this.fence(lease);
      const now = this.now();
      this.exec(
        'UPDATE runs SET lease_owner = ?, lease_expires_at = ?, updated_at = ? WHERE id = ?',
        toJson(lease.owner),
        now + ttlMs,
        now,
        lease.runId,
      );
      return { ...lease, expiresAt: now + ttlMs };
    });
  }

  async releaseLease(lease: Lease): Promise<void> {
    this.write(() =>
      this.exec(
        `UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND fencing_token = ?`,
        this.now(),
        lease.runId,
        lease.token,
      ),
    );
  }

  async beginRound(lease: Lease, round: number, head: string): Promise<void> {
    this.write(() => {
      this.fence(lease);
      const had = this.one('SELECT head FROM rounds WHERE run_id = ? AND round = ?', lease.runId, round);
      if (had && had.head !== head)
        throw new LedgerConflictError(
          `run ${lease.runId}: round ${round} was begun at ${had.head}, not ${head}`,
        );
      if (!had)
        this.exec(
          'INSERT INTO rounds (run_id, round, head, started_at) VALUES (?, ?, ?, ?)',
          lease.runId,
          round,
          head,
          this.now(),
        );
    });
  }

  async beginAttempt(lease: Lease, a: AttemptStart): Promise<void> {
    // Committed without its own fsync (see writeUnsynced): the verdict's transaction, or the
    // attempt's end, syncs the log this row is in before anything of the call is used.
    this.writeUnsynced(() => {
      this.fence(lease);
      this.exec(
        `INSERT OR IGNORE INTO attempts (run_id, call_key, attempt_no, round, stage, role, reviewer, class, started_at, confined)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'started', ?, ?)`,
        lease.runId,
        a.callKey,
        a.attemptNo,
        a.round,
        a.stage,
        a.role,
        a.reviewer,
        this.now(),
        a.confined ? 1 : 0,
      );
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
    this.write(() => {
      this.fence(lease);
      this.endAttemptIn(lease.runId, callKey, attemptNo, cls, detail);
      if (spentUsd > 0)
        this.exec('UPDATE runs SET cost_usd = cost_usd + ? WHERE id = ?', spentUsd, lease.runId);
    });
  }

  /** Ends an attempt inside the caller's transaction. */
  private endAttemptIn(
    runId: string,
    callKey: string,
    attemptNo: number,
    cls: AttemptClass,
    detail: string | null,
  ): void {
    const n = this.exec(
      'UPDATE attempts SET class = ?, detail = ?, ended_at = ? WHERE run_id = ? AND call_key = ? AND attempt_no = ?',
      cls,
      detail,
      this.now(),
      runId,
      callKey,
      attemptNo,
    );
    if (n === 0) throw attemptNeverBegun(runId, callKey, attemptNo);
  }

  async markInterruptedAttempts(lease: Lease): Promise<number> {
    return this.write(() => {
      this.fence(lease);
      return this.exec(
        `UPDATE attempts SET class = 'unknown', ended_at = ? WHERE run_id = ? AND class = 'started'`,
        this.now(),
        lease.runId,
      );
    });
  }

  async recordVerdict(
    lease: Lease,
    v: NewVerdict,
    endsAttempt?: number,
    attemptDetail?: string | null,
  ): Promise<{ inserted: boolean; verdict: VerdictRow }> {
    return this.write(() => {
      this.fence(lease);
      return this.recordVerdictIn(lease, { verdict: v, endsAttempt, attemptDetail });
    });
  }

  async recordVerdicts(lease: Lease, items: readonly VerdictToRecord[]): Promise<RecordedVerdict[]> {
    // One IMMEDIATE transaction, so one FULL commit (one fsync of the log) for the whole batch.
    return this.write(() => {
      this.fence(lease);
      return items.map((item) => this.recordVerdictIn(lease, item));
    });
  }

  /** One verdict inside the caller's transaction. */
  private recordVerdictIn(
    lease: Lease,
    { verdict: v, endsAttempt, attemptDetail }: VerdictToRecord,
  ): RecordedVerdict {
    if (endsAttempt !== undefined)
      this.endAttemptIn(lease.runId, v.callKey, endsAttempt, 'ok', attemptDetail ?? null);
    const n = this.exec(
      `INSERT INTO verdicts (${VERDICT_COLUMNS}, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (call_key) DO NOTHING`,
      ...verdictValues(v),
      this.now(),
    );
    // Invariant 12: every cent is on the run the moment its verdict is, also on a run that
    // aborts before its stage completes (admission's cost window reads it).
    if (n === 1 && v.costUsd > 0)
      this.exec('UPDATE runs SET cost_usd = cost_usd + ? WHERE id = ?', v.costUsd, lease.runId);
    const row = this.one('SELECT * FROM verdicts WHERE call_key = ?', v.callKey);
    return { inserted: n === 1, verdict: toVerdict(row!) };
  }

  async completeStage(lease: Lease, c: StageCompletion): Promise<StageRow> {
    return this.write(() => {
      this.fence(lease);
      const had = this.one(
        'SELECT * FROM stages WHERE run_id = ? AND round = ? AND stage = ?',
        lease.runId,
        c.round,
        c.stage,
      );
      if (had) {
        if (!sameJson(JSON.parse(String(had.result)), c.result ?? null))
          throw new StageConflictError(lease.runId, c.round, c.stage);
        return toStage(had);
      }
      const now = this.now();
      const result = toJson(c.result);
      const inserted = this.one(
        `INSERT INTO stages (run_id, round, stage, snapshot_key, result, completed_at)
         SELECT id, ?, ?, snapshot_key, ?, ? FROM runs WHERE id = ? RETURNING run_id, snapshot_key, completed_at`,
        c.round,
        c.stage,
        result,
        now,
        lease.runId,
      );
      for (const f of c.findings ?? [])
        this.exec(
          `INSERT INTO findings (id, run_id, round, reviewer, revision, call_key, idx, reported, severity, gate, content)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        );
      for (const x of c.refutations ?? [])
        this.patchFinding(lease.runId, x.findingId, 'refutation', x.refutation);
      for (const x of c.disputes ?? [])
        this.patchFinding(lease.runId, x.findingId, 'dispute', { reason: x.reason });
      for (const x of c.settlements ?? []) {
        if (!this.one('SELECT 1 AS x FROM findings WHERE id = ? AND run_id = ?', x.findingId, lease.runId))
          throw new UnknownFindingError(x.findingId);
        this.exec(
          `INSERT INTO settlements (finding_id, by, decision, note, at, origin) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (finding_id) DO NOTHING`,
          x.findingId,
          x.settlement.by,
          x.settlement.decision,
          x.settlement.note,
          x.settlement.at,
          x.settlement.origin ? toJson(x.settlement.origin) : null,
        );
      }
      this.exec(
        `UPDATE runs SET head = coalesce(?, head), cost_usd = coalesce(?, cost_usd),
           rounds_done = coalesce(?, rounds_done), updated_at = ? WHERE id = ?`,
        c.run?.head ?? null,
        c.run?.costUsd ?? null,
        c.run?.roundsDone ?? null,
        now,
        lease.runId,
      );
      return recordedStage(c, inserted, result);
    });
  }

  async finishRun(lease: Lease, end: RunEnd): Promise<RunRow> {
    return this.write(() => {
      const from = this.fence(lease);
      checkRunEnd(lease.runId, end);
      this.end(lease.runId, from, end, false);
      return this.run(lease.runId);
    });
  }

  async setRecordPath(runId: string, path: string): Promise<void> {
    this.write(() => {
      const n = this.exec(
        'UPDATE runs SET record_path = ?, updated_at = ? WHERE id = ?',
        path,
        this.now(),
        runId,
      );
      if (n === 0) throw new UnknownRunError(runId);
    });
  }

  async putFixBundle(lease: Lease, commit: string, bundle: Buffer): Promise<void> {
    this.write(() => {
      this.fence(lease);
      this.exec(
        `INSERT INTO fix_bundles (run_id, commit_id, bundle, recorded_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (run_id, commit_id) DO NOTHING`,
        lease.runId,
        commit,
        bundle,
        this.now(),
      );
    });
  }

  async getFixBundle(runId: string, commit: string): Promise<Buffer | null> {
    return this.read(() => {
      const row = this.one(
        'SELECT bundle FROM fix_bundles WHERE run_id = ? AND commit_id = ?',
        runId,
        commit,
      );
      return row ? Buffer.from(row.bundle as Uint8Array) : null;
    });
  }

  async putRecordEnvelope(runId: string, envelope: string): Promise<string> {
    return this.write(() => {
      if (!this.one('SELECT 1 FROM runs WHERE id = ?', runId)) throw new UnknownRunError(runId);
      this.exec(
        'INSERT INTO run_records (run_id, envelope, recorded_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO NOTHING',
        runId,
        envelope,
        this.now(),
      );
      return String(this.one('SELECT envelope FROM run_records WHERE run_id = ?', runId)!.envelope);
    });
  }

  async getRecordEnvelope(runId: string): Promise<string | null> {
    return this.read(() => {
      const row = this.one('SELECT envelope FROM run_records WHERE run_id = ?', runId);
      return row ? String(row.envelope) : null;
    });
  }

  async runsWithoutRecord(repo: string, limit: number): Promise<RunRow[]> {
    return this.read(() =>
      this.all(
        `${RUN} WHERE r.repo = ? AND ${statusIn([RunStatus.completed], 'r.status')}
           AND NOT EXISTS (SELECT 1 FROM run_records x WHERE x.run_id = r.id)
         ORDER BY r.ended_at, r.rowid LIMIT ?`,
        repo,
        limit,
      ).map(toRun),
    );
  }

  async settle(findingId: string, s: Settlement): Promise<FindingRow> {
    return this.write(() => {
      const f = this.one(`${FINDING} WHERE f.id = ?`, findingId);
      if (!f) throw new UnknownFindingError(findingId);
      if (f.s_by !== null) throw new AlreadySettledError(findingId, String(f.s_by));
      this.exec(
        'INSERT INTO settlements (finding_id, by, decision, note, at, origin) VALUES (?, ?, ?, ?, ?, ?)',
        findingId,
        s.by,
        s.decision,
        s.note,
        s.at,
        s.origin ? toJson(s.origin) : null,
      );
      return toFinding(this.one(`${FINDING} WHERE f.id = ?`, findingId)!);
    });
  }

  async getRun(id: string): Promise<RunRow | null> {
    return this.read(() => {
      const r = this.one(`${RUN} WHERE r.id = ?`, id);
      return r ? toRun(r) : null;
    });
  }

  async findRun(idOrPrefix: string): Promise<RunRow | null> {
    return this.read(() => {
      const exact = this.one(`${RUN} WHERE r.id = ?`, idOrPrefix);
      if (exact) return toRun(exact);
      const hits = this.all(`${RUN} WHERE substr(r.id, 1, ?) = ? LIMIT 2`, idOrPrefix.length, idOrPrefix);
      return idOrPrefix !== '' && hits.length === 1 ? toRun(hits[0]!) : null;
    });
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRow[]> {
    return this.read(() => {
      const where: string[] = [];
      const args: unknown[] = [];
      if (filter.status) {
        where.push(`r.status IN (${filter.status.map(() => '?').join(',') || 'NULL'})`);
        args.push(...filter.status);
      }
      if (filter.changeKey !== undefined) {
        where.push('r.change_key = ?');
        args.push(filter.changeKey);
      }
      if (filter.admissionKey !== undefined) {
        where.push('r.admission_key = ?');
        args.push(filter.admissionKey);
      }
      const sql = `${RUN} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?`;
      return this.all(sql, ...args, filter.limit ?? -1).map(toRun);
    });
  }

  async listRounds(runId: string) {
    return this.read(() =>
      this.all('SELECT * FROM rounds WHERE run_id = ? ORDER BY round', runId).map(toRound),
    );
  }

  async listStages(runId: string) {
    return this.read(() =>
      this.all(`SELECT * FROM stages WHERE run_id = ? ORDER BY round, ${STAGE_RANK_SQL}`, runId).map(toStage),
    );
  }

  async recordJudgement(
    j: Omit<JudgementRow, 'recordedAt'>,
  ): Promise<{ inserted: boolean; judgement: JudgementRow }> {
    return this.write(() => {
      if (!this.one('SELECT 1 AS x FROM runs WHERE id = ?', j.runId)) throw new UnknownRunError(j.runId);
      const n = this.exec(
        `INSERT INTO judgements (${JUDGEMENT_COLUMNS}, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (call_key) DO NOTHING`,
        ...judgementValues(j),
        this.now(),
      );
      return {
        inserted: n > 0,
        judgement: toJudgement(this.one('SELECT * FROM judgements WHERE call_key = ?', j.callKey)!),
      };
    });
  }

  async listJudgements(runId: string) {
    return this.read(() =>
      this.all('SELECT * FROM judgements WHERE run_id = ? ORDER BY rowid', runId).map(toJudgement),
    );
  }

  async listVerdicts(runId: string) {
    return this.read(() =>
      this.all('SELECT * FROM verdicts WHERE run_id = ? ORDER BY rowid', runId).map(toVerdict),
    );
  }

  async reusableVerdict(repo: string, reuseKey: string) {
    return this.read(() => {
      const row = this.one(
        `SELECT v.* FROM verdicts v JOIN runs r ON r.id = v.run_id
          WHERE v.reuse_key = ? AND r.repo = ? ORDER BY v.recorded_at, v.rowid LIMIT 1`,
        reuseKey,
        repo,
      );
      return row ? toVerdict(row) : null;
    });
  }

  async listVerdictsForChange(changeKey: string) {
    return this.read(() =>
      this.all(
        'SELECT v.* FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE r.change_key = ? ORDER BY v.rowid',
        changeKey,
      ).map(toVerdict),
    );
  }

  async listAttempts(runId: string) {
    return this.read(() =>
      this.all('SELECT * FROM attempts WHERE run_id = ? ORDER BY rowid', runId).map(toAttempt),
    );
  }

  async listFindings(runId: string) {
    return this.read(() => this.all(`${FINDING} WHERE f.run_id = ? ORDER BY f.rowid`, runId).map(toFinding));
  }

  async getFinding(idOrPrefix: string): Promise<FindingRow | null> {
    return this.read(() => {
      const exact = this.one(`${FINDING} WHERE f.id = ?`, idOrPrefix);
      if (exact) return toFinding(exact);
      const hits = this.all(`${FINDING} WHERE substr(f.id, 1, ?) = ? LIMIT 2`, idOrPrefix.length, idOrPrefix);
      return idOrPrefix !== '' && hits.length === 1 ? toFinding(hits[0]!) : null;
    });
  }

  private take(runId: string, from: RunStatus, owner: LeaseOwner, ttlMs: number, now: number): Lease {
    assertTransition(from, RunStatus.running, runId);
    this.exec(
      `UPDATE runs SET status = ?, fencing_token = fencing_token + 1, lease_owner = ?,
         lease_expires_at = ?, updated_at = ? WHERE id = ? AND ${canMoveInto(RunStatus.running)}`,
      RunStatus.running,
      toJson(owner),
      now + ttlMs,
      now,
      runId,
    );
    const r = this.one('SELECT fencing_token FROM runs WHERE id = ?', runId)!;
    return { runId, token: Number(r.fencing_token), owner, expiresAt: now + ttlMs };
  }

  /** Checks the lease inside the write's transaction; returns the run's status, which the write may move. */
  private fence(lease: Lease): RunStatus {
    const r = this.one('SELECT fencing_token, status FROM runs WHERE id = ?', lease.runId);
    checkFence(lease, r && { fencingToken: Number(r.fencing_token), status: r.status as RunStatus });
    return r!.status as RunStatus;
  }

  /** Ends a run that is `from` now (read in this transaction): core's table decides, the SQL guard repeats it. */
  private end(runId: string, from: RunStatus, end: RunEnd, newToken: boolean): void {
    assertTransition(from, end.status, runId);
    const now = this.now();
    this.exec(
      `UPDATE runs SET status = ?, outcome = ?, stop_reason = ?, reason = ?, detail = ?, lease_owner = NULL,
         lease_expires_at = NULL, ended_at = ?, updated_at = ?, fencing_token = fencing_token + ?
       WHERE id = ? AND ${canMoveInto(end.status)}`,
      end.status,
      end.outcome,
      end.stopReason,
      end.reason,
      end.detail,
      now,
      now,
      newToken ? 1 : 0,
      runId,
    );
  }

  private patchFinding(runId: string, id: string, column: 'refutation' | 'dispute', value: unknown): void {
    const n = this.exec(
      `UPDATE findings SET ${column} = ? WHERE id = ? AND run_id = ?`,
      toJson(value),
      id,
      runId,
    );
    if (n === 0) throw new UnknownFindingError(id);
  }

  private run(id: string): RunRow {
    return toRun(this.one(`${RUN} WHERE r.id = ?`, id)!);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private one(sql: string, ...args: unknown[]): Raw | undefined {
    return this.stmt(sql).get(...args) as Raw | undefined;
  }

  private all(sql: string, ...args: unknown[]): Raw[] {
    return this.stmt(sql).all(...args) as Raw[];
  }

  private exec(sql: string, ...args: unknown[]): number {
    return this.stmt(sql).run(...args).changes;
  }

  /** One IMMEDIATE transaction; any fault rolls it back whole and surfaces as a named error. */
  private write<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } catch (err) {
      throw this.mapFault(err);
    }
  }

  /**
   * A write committed with synchronous=NORMAL: in WAL mode its frames are in
   * the log file (the kernel's page cache) when the commit returns, so a
   * killed process (kill -9 included) loses nothing; only a power loss or an
   * OS crash before the next FULL commit can drop it, and that next commit's
   * fsync of the log makes it durable too. Used for the attempt's begin only,
   * whose loss with the machine loses the call it announced as well
   * (docs/architecture.md, "One fsync per agent call").
   */
  private writeUnsynced<T>(fn: () => T): T {
    // Prepared once: db.pragma() compiles its statement on every call, twice per agent call here.
    this.stmt('PRAGMA synchronous = NORMAL').run();
    try {
      return this.write(fn);
    } finally {
      this.stmt('PRAGMA synchronous = FULL').run();
    }
  }

  private read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw this.mapFault(err);
    }
  }

  private mapFault(err: unknown): unknown {
    const code = String((err as { code?: unknown })?.code ?? '');
    if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE')
      return new LedgerConflictError(`ledger ${this.path}: ${(err as Error).message}`);
    return mapSqliteFault(err, this.path);
  }
}
