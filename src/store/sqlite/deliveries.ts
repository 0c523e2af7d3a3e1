/**
 * The service's tables in the embedded ledger. `revloop serve` refuses SQLite
 * (a service is many processes), but the tables and their rules are the same
 * as on PostgreSQL, so a worker on either reads a run's trigger one way and
 * the contract suite holds both.
 */
import type { RunRow } from '../../core/ledger.js';
import { assertTransition } from '../../core/run-state.js';
import { RunStatus } from '../../core/types.js';
import type {
  DeliveryEnd,
  DeliveryFilter,
  DeliveryForge,
  DeliveryLedger,
  DeliveryRow,
  NewDelivery,
  RunTrigger,
  ServiceStats,
} from '../../ports/deliveries.js';
import {
  DELIVERY_COLUMNS,
  deliveryWhere,
  ENDED_RUN_SQL,
  statsOf,
  toDelivery,
  toTrigger,
} from '../shared/delivery-rows.js';
import { type Raw, toRun } from '../shared/rows.js';
import { canMoveInto } from '../shared/status-sql.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';

const RUN = 'SELECT r.*, s.snapshot FROM runs r JOIN snapshots s ON s.snapshot_key = r.snapshot_key';

/** What the store lends: its clock, its statements and its transactions. */
export interface SqliteAccess {
  now(): number;
  one(sql: string, ...args: unknown[]): Raw | undefined;
  all(sql: string, ...args: unknown[]): Raw[];
  exec(sql: string, ...args: unknown[]): number;
  write<T>(fn: () => T): T;
  read<T>(fn: () => T): T;
}

export class SqliteDeliveries implements DeliveryLedger {
  constructor(private readonly db: SqliteAccess) {}

  async recordDelivery(d: NewDelivery): Promise<{ inserted: boolean; delivery: DeliveryRow }> {
    return this.db.write(() => {
      const n = this.db.exec(
        `INSERT INTO deliveries (${DELIVERY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)
         ON CONFLICT DO NOTHING`,
        d.forge,
        d.deliveryId,
        d.bodyDigest,
        d.event,
        d.intent,
        d.repository,
        d.pr,
        d.head,
        d.baseBranch,
        d.sender,
        this.db.now(),
      );
      // Inserted, the row is found by its id; a duplicate, by its id or its body (the first kept).
      const row = this.db.one(
        'SELECT * FROM deliveries WHERE forge = ? AND (delivery_id = ? OR body_digest = ?) ORDER BY received_at, rowid LIMIT 1',
        d.forge,
        d.deliveryId,
        n === 1 ? null : d.bodyDigest,
      );
      return { inserted: n === 1, delivery: toDelivery(row!) };
    });
  }

  async claimDelivery(ttlMs: number): Promise<DeliveryRow | null> {
    return this.db.write(() => {
      const now = this.db.now();
      const next = this.db.one(
        `SELECT forge, delivery_id FROM deliveries
         WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until <= ?)
         ORDER BY received_at LIMIT 1`,
        now,
      );
      if (!next) return null;
      this.db.exec(
        'UPDATE deliveries SET claimed_until = ?, attempts = attempts + 1 WHERE forge = ? AND delivery_id = ?',
        now + Math.round(ttlMs),
        next.forge,
        next.delivery_id,
      );
      return toDelivery(
        this.db.one(
          'SELECT * FROM deliveries WHERE forge = ? AND delivery_id = ?',
          next.forge,
          next.delivery_id,
        )!,
      );
    });
  }

  async retryDelivery(forge: DeliveryForge, id: string, afterMs: number, detail: string): Promise<void> {
    this.db.write(() =>
      this.db.exec(
        `UPDATE deliveries SET claimed_until = ?, detail = ? WHERE forge = ? AND delivery_id = ? AND state = 'pending'`,
        this.db.now() + Math.round(afterMs),
        detail,
        forge,
        id,
      ),
    );
  }

  async endDelivery(forge: DeliveryForge, id: string, end: DeliveryEnd): Promise<DeliveryRow> {
    return this.db.write(() => {
      const n = this.db.exec(
        `UPDATE deliveries SET state = ?, run_id = ?, detail = ?, claimed_until = NULL
         WHERE forge = ? AND delivery_id = ? AND state = 'pending'`,
        end.state,
        end.runId,
        end.detail,
        forge,
        id,
      );
      const row = this.db.one('SELECT * FROM deliveries WHERE forge = ? AND delivery_id = ?', forge, id);
      if (!row) throw new Error(`no delivery ${forge}/${id}`);
      if (n === 1 && end.runId)
        this.db.exec(
          `INSERT INTO run_triggers (run_id, forge, repository, pr, delivery_id, recorded_at)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING`,
          end.runId,
          forge,
          row.repository,
          row.pr,
          id,
          this.db.now(),
        );
      return toDelivery(row);
    });
  }

  async getDelivery(forge: DeliveryForge, id: string): Promise<DeliveryRow | null> {
    return this.db.read(() => {
      const r = this.db.one('SELECT * FROM deliveries WHERE forge = ? AND delivery_id = ?', forge, id);
      return r ? toDelivery(r) : null;
    });
  }

  async listDeliveries(limit: number, filter?: DeliveryFilter): Promise<DeliveryRow[]> {
    const where = deliveryWhere(filter, () => '?');
    return this.db.read(() =>
      this.db
        .all(
          `SELECT * FROM deliveries${where.sql} ORDER BY received_at DESC, rowid DESC LIMIT ?`,
          ...where.args,
          limit,
        )
        .map(toDelivery),
    );
  }

  async cancelQueued(changeKey: string, detail: string): Promise<RunRow[]> {
    assertTransition(RunStatus.queued, RunStatus.aborted);
    return this.db.write(() => {
      const ids = this.db
        .all(`SELECT id FROM runs WHERE change_key = ? AND status = '${RunStatus.queued}'`, changeKey)
        .map((r) => String(r.id));
      const now = this.db.now();
      for (const id of ids)
        this.db.exec(
          `UPDATE runs SET status = '${RunStatus.aborted}', reason = 'superseded', detail = ?,
             lease_owner = NULL, lease_expires_at = NULL, ended_at = ?, updated_at = ?,
             fencing_token = fencing_token + 1
           WHERE id = ? AND ${canMoveInto(RunStatus.aborted)}`,
          detail,
          now,
          now,
          id,
        );
      return ids.map((id) => toRun(this.db.one(`${RUN} WHERE r.id = ?`, id)!));
    });
  }

  async triggerOf(runId: string): Promise<RunTrigger | null> {
    return this.db.read(() => {
      const r = this.db.one('SELECT * FROM run_triggers WHERE run_id = ?', runId);
      return r ? toTrigger(r) : null;
    });
  }

  async claimPublication(repo: string, ttlMs: number): Promise<RunTrigger | null> {
    const next = () =>
      this.db.one(
        `SELECT t.run_id FROM run_triggers t JOIN runs r ON r.id = t.run_id
         WHERE t.published_at IS NULL AND r.repo = ? AND ${ENDED_RUN_SQL}
           AND (t.claimed_until IS NULL OR t.claimed_until <= ?)
         ORDER BY t.recorded_at LIMIT 1`,
        repo,
        this.db.now(),
      );
    // Every worker asks every second: a read first, so an idle ledger never takes the write lock.
    if (!this.db.read(next)) return null;
    return this.db.write(() => {
      const now = this.db.now();
      const found = next();
      if (!found) return null;
      this.db.exec(
        'UPDATE run_triggers SET claimed_until = ? WHERE run_id = ?',
        now + Math.round(ttlMs),
        found.run_id,
      );
      return toTrigger(this.db.one('SELECT * FROM run_triggers WHERE run_id = ?', found.run_id)!);
    });
  }

  async endPublication(runId: string, detail: string): Promise<void> {
    this.db.write(() =>
      this.db.exec(
        'UPDATE run_triggers SET published_at = ?, detail = ?, claimed_until = NULL WHERE run_id = ?',
        this.db.now(),
        detail,
        runId,
      ),
    );
  }

  async schemaVersion(): Promise<ServiceStats['schema']> {
    return this.db.read(() => ({
      applied: Number(this.db.one('SELECT max(version) AS v FROM schema_migrations')?.v ?? 0),
      wanted: Math.max(...SQLITE_MIGRATIONS.map((m) => m.version)),
    }));
  }

  async serviceStats(): Promise<ServiceStats> {
    const schema = await this.schemaVersion();
    return this.db.read(() => {
      const now = this.db.now();
      return statsOf(
        schema,
        this.db.all('SELECT state, count(*) AS n FROM deliveries GROUP BY state'),
        this.db.all('SELECT status, outcome, count(*) AS n FROM runs GROUP BY status, outcome'),
        this.db.one(
          `SELECT count(*) AS n, ? - min(created_at) AS age FROM runs WHERE status = 'queued'`,
          now,
        ),
        this.db.one(
          `SELECT coalesce(sum(cost_usd), 0) AS total,
             coalesce(sum(CASE WHEN created_at >= ? THEN cost_usd END), 0) AS day FROM runs`,
          now - 86_400_000,
        ),
      );
    });
  }
}
