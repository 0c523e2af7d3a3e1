/**
 * The service's tables on PostgreSQL. A delivery is one INSERT … ON CONFLICT
 * DO NOTHING, committed before the sender is answered: five copies of one
 * delivery racing insert one row (the unique index makes the others wait
 * for its commit, then do nothing). Claims use FOR UPDATE SKIP LOCKED, on the
 * database clock, as run claims do.
 */
import type pg from 'pg';
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
import { PG_MIGRATIONS } from './migrations/index.js';

const NOW = 'revloop_now_ms()';
const RUN = 'SELECT r.*, s.snapshot FROM runs r JOIN snapshots s ON s.snapshot_key = r.snapshot_key';

/** What the store lends: its pool, its transaction and its fault mapping. */
export interface PgAccess {
  pool(): pg.Pool;
  tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T>;
  guard<T>(fn: () => Promise<T>): Promise<T>;
}

export class PgDeliveries implements DeliveryLedger {
  constructor(private readonly db: PgAccess) {}

  async recordDelivery(d: NewDelivery): Promise<{ inserted: boolean; delivery: DeliveryRow }> {
    return this.db.guard(async () => {
      const ins = await this.db.pool().query(
        `INSERT INTO deliveries (${DELIVERY_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', ${NOW})
         ON CONFLICT DO NOTHING RETURNING *`,
        [
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
        ],
      );
      if (ins.rows[0]) return { inserted: true, delivery: toDelivery(ins.rows[0] as Raw) };
      const had = await this.db
        .pool()
        .query(
          'SELECT * FROM deliveries WHERE forge = $1 AND (delivery_id = $2 OR body_digest = $3) ORDER BY received_at LIMIT 1',
          [d.forge, d.deliveryId, d.bodyDigest],
        );
      return { inserted: false, delivery: toDelivery(had.rows[0] as Raw) };
    });
  }

  async claimDelivery(ttlMs: number): Promise<DeliveryRow | null> {
    return this.db.guard(async () => {
      const r = await this.db.pool().query(
        `WITH next AS (
           SELECT forge, delivery_id FROM deliveries
           WHERE state = 'pending' AND (claimed_until IS NULL OR claimed_until <= ${NOW})
           ORDER BY received_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE deliveries d SET claimed_until = ${NOW} + $1, attempts = d.attempts + 1
         FROM next WHERE d.forge = next.forge AND d.delivery_id = next.delivery_id
         RETURNING d.*`,
        [Math.round(ttlMs)],
      );
      return r.rows[0] ? toDelivery(r.rows[0] as Raw) : null;
    });
  }

  async retryDelivery(forge: DeliveryForge, id: string, afterMs: number, detail: string): Promise<void> {
    await this.db.guard(() =>
      this.db.pool().query(
        `UPDATE deliveries SET claimed_until = ${NOW} + $3, detail = $4
           WHERE forge = $1 AND delivery_id = $2 AND state = 'pending'`,
        [forge, id, Math.round(afterMs), detail],
      ),
    );
  }

  async endDelivery(forge: DeliveryForge, id: string, end: DeliveryEnd): Promise<DeliveryRow> {
    return this.db.guard(() =>
      this.db.tx(async (c) => {
        const up = await c.query(
          `UPDATE deliveries SET state = $3, run_id = $4, detail = $5, claimed_until = NULL
           WHERE forge = $1 AND delivery_id = $2 AND state = 'pending' RETURNING *`,
          [forge, id, end.state, end.runId, end.detail],
        );
        const row = (up.rows[0] ??
          (await c.query('SELECT * FROM deliveries WHERE forge = $1 AND delivery_id = $2', [forge, id]))
            .rows[0]) as Raw | undefined;
        if (!row) throw new Error(`no delivery ${forge}/${id}`);
        if (up.rows[0] && end.runId)
          await c.query(
            `INSERT INTO run_triggers (run_id, forge, repository, pr, delivery_id, recorded_at)
             VALUES ($1, $2, $3, $4, $5, ${NOW}) ON CONFLICT (run_id) DO NOTHING`,
            [end.runId, forge, row.repository, row.pr, id],
          );
        return toDelivery(row);
      }),
    );
  }

  async getDelivery(forge: DeliveryForge, id: string): Promise<DeliveryRow | null> {
    return this.db.guard(async () => {
      const r = await this.db
        .pool()
        .query('SELECT * FROM deliveries WHERE forge = $1 AND delivery_id = $2', [forge, id]);
      return r.rows[0] ? toDelivery(r.rows[0] as Raw) : null;
    });
  }

  async listDeliveries(limit: number, filter?: DeliveryFilter): Promise<DeliveryRow[]> {
    const where = deliveryWhere(filter, (i) => `$${i}`);
    return this.db.guard(async () =>
      (
        await this.db
          .pool()
          .query(
            `SELECT * FROM deliveries${where.sql} ORDER BY received_at DESC, delivery_id DESC LIMIT $${where.args.length + 1}`,
            [...where.args, limit],
          )
      ).rows.map((r) => toDelivery(r as Raw)),
    );
  }

  async cancelQueued(changeKey: string, detail: string): Promise<RunRow[]> {
    assertTransition(RunStatus.queued, RunStatus.aborted);
    return this.db.guard(() =>
      this.db.tx(async (c) => {
        // A run a claim took meanwhile is running now: the re-checked status leaves it alone.
        const ids = await c.query(
          `UPDATE runs SET status = '${RunStatus.aborted}', reason = 'superseded', detail = $2,
             lease_owner = NULL, lease_expires_at = NULL, ended_at = ${NOW}, updated_at = ${NOW},
             fencing_token = fencing_token + 1
           WHERE change_key = $1 AND status = '${RunStatus.queued}' AND ${canMoveInto(RunStatus.aborted)}
           RETURNING id`,
          [changeKey, detail],
        );
        if (ids.rows.length === 0) return [];
        const rows = await c.query(`${RUN} WHERE r.id = ANY($1::text[]) ORDER BY r.created_at, r.seq`, [
          ids.rows.map((r) => String((r as Raw).id)),
        ]);
        return rows.rows.map((r) => toRun(r as Raw));
      }),
    );
  }

  async triggerOf(runId: string): Promise<RunTrigger | null> {
    return this.db.guard(async () => {
      const r = await this.db.pool().query('SELECT * FROM run_triggers WHERE run_id = $1', [runId]);
      return r.rows[0] ? toTrigger(r.rows[0] as Raw) : null;
    });
  }

  async claimPublication(repo: string, ttlMs: number): Promise<RunTrigger | null> {
    return this.db.guard(async () => {
      const r = await this.db.pool().query(
        `WITH next AS (
           SELECT t.run_id FROM run_triggers t JOIN runs r ON r.id = t.run_id
           WHERE t.published_at IS NULL AND r.repo = $1 AND ${ENDED_RUN_SQL}
             AND (t.claimed_until IS NULL OR t.claimed_until <= ${NOW})
           ORDER BY t.recorded_at LIMIT 1 FOR UPDATE OF t SKIP LOCKED)
         UPDATE run_triggers t SET claimed_until = ${NOW} + $2 FROM next WHERE t.run_id = next.run_id
         RETURNING t.*`,
        [repo, Math.round(ttlMs)],
      );
      return r.rows[0] ? toTrigger(r.rows[0] as Raw) : null;
    });
  }

  async endPublication(runId: string, detail: string): Promise<void> {
    await this.db.guard(() =>
      this.db
        .pool()
        .query(
          `UPDATE run_triggers SET published_at = ${NOW}, detail = $2, claimed_until = NULL WHERE run_id = $1`,
          [runId, detail],
        ),
    );
  }

  async schemaVersion(): Promise<ServiceStats['schema']> {
    return this.db.guard(async () => {
      const r = await this.db.pool().query('SELECT max(version) AS v FROM schema_migrations');
      return { applied: Number(r.rows[0]?.v ?? 0), wanted: PG_MIGRATIONS.at(-1)?.version ?? 0 };
    });
  }

  async serviceStats(): Promise<ServiceStats> {
    return this.db.guard(async () => {
      const q = (sql: string) =>
        this.db
          .pool()
          .query(sql)
          .then((r) => r.rows as Raw[]);
      const [schema, deliveries, runs, queue, spend] = await Promise.all([
        this.schemaVersion(),
        q('SELECT state, count(*) AS n FROM deliveries GROUP BY state'),
        q('SELECT status, outcome, count(*) AS n FROM runs GROUP BY status, outcome'),
        q(`SELECT count(*) AS n, ${NOW} - min(created_at) AS age FROM runs WHERE status = 'queued'`),
        q(`SELECT coalesce(sum(cost_usd), 0) AS total,
             coalesce(sum(cost_usd) FILTER (WHERE created_at >= ${NOW} - 86400000), 0) AS day FROM runs`),
      ]);
      return statsOf(schema, deliveries, runs, queue[0], spend[0]);
    });
  }
}
