/** The service's tables in memory, with the rules of the SQL stores (the contract suite holds all three). */
import type { RunRow } from '../core/ledger.js';
import { isTerminal, RunStatus } from '../core/types.js';
import type {
  DeliveryEnd,
  DeliveryFilter,
  DeliveryForge,
  DeliveryLedger,
  DeliveryRow,
  NewDelivery,
  RunTrigger,
  ServiceStats,
} from '../ports/deliveries.js';
import { copyJson } from './shared/rules.js';

/** What the memory store lends: its clock, its runs and its way of ending one. */
export interface MemoryAccess {
  now(): number;
  runs(): Iterable<RunRow>;
  abort(run: RunRow, detail: string): RunRow;
}

type Kept = DeliveryRow & { claimedUntil: number | null; seq: number };
type KeptTrigger = RunTrigger & { claimedUntil: number | null; recordedAt: number; seq: number };

export class MemoryDeliveries implements DeliveryLedger {
  private readonly rows = new Map<string, Kept>();
  private readonly triggers = new Map<string, KeptTrigger>();
  private seq = 0;

  constructor(private readonly db: MemoryAccess) {}

  async recordDelivery(d: NewDelivery): Promise<{ inserted: boolean; delivery: DeliveryRow }> {
    const had = [...this.rows.values()].find(
      (r) => r.forge === d.forge && (r.deliveryId === d.deliveryId || r.bodyDigest === d.bodyDigest),
    );
    if (had) return { inserted: false, delivery: this.out(had) };
    const row: Kept = {
      ...copyJson(d),
      state: 'pending',
      detail: null,
      runId: null,
      receivedAt: this.db.now(),
      attempts: 0,
      claimedUntil: null,
      seq: this.seq++,
    };
    this.rows.set(key(d.forge, d.deliveryId), row);
    return { inserted: true, delivery: this.out(row) };
  }

  async claimDelivery(ttlMs: number): Promise<DeliveryRow | null> {
    const now = this.db.now();
    const next = [...this.rows.values()]
      .filter((r) => r.state === 'pending' && (r.claimedUntil === null || r.claimedUntil <= now))
      .sort((a, b) => a.receivedAt - b.receivedAt || a.seq - b.seq)[0];
    if (!next) return null;
    next.claimedUntil = now + ttlMs;
    next.attempts++;
    return this.out(next);
  }

  async retryDelivery(forge: DeliveryForge, id: string, afterMs: number, detail: string): Promise<void> {
    const r = this.rows.get(key(forge, id));
    if (r?.state !== 'pending') return;
    r.claimedUntil = this.db.now() + afterMs;
    r.detail = detail;
  }

  async endDelivery(forge: DeliveryForge, id: string, end: DeliveryEnd): Promise<DeliveryRow> {
    const r = this.rows.get(key(forge, id));
    if (!r) throw new Error(`no delivery ${forge}/${id}`);
    if (r.state !== 'pending') return this.out(r);
    Object.assign(r, { state: end.state, runId: end.runId, detail: end.detail, claimedUntil: null });
    if (end.runId && !this.triggers.has(end.runId))
      this.triggers.set(end.runId, {
        runId: end.runId,
        forge,
        repository: r.repository,
        pr: r.pr,
        deliveryId: id,
        publishedAt: null,
        detail: null,
        claimedUntil: null,
        recordedAt: this.db.now(),
        seq: this.seq++,
      });
    return this.out(r);
  }

  async getDelivery(forge: DeliveryForge, id: string): Promise<DeliveryRow | null> {
    const r = this.rows.get(key(forge, id));
    return r ? this.out(r) : null;
  }

  async listDeliveries(limit: number, filter?: DeliveryFilter): Promise<DeliveryRow[]> {
    const f = filter ?? {};
    return [...this.rows.values()]
      .filter(
        (r) =>
          (f.state === undefined || r.state === f.state) &&
          (f.repository === undefined || r.repository === f.repository) &&
          (f.pr === undefined || r.pr === f.pr) &&
          (f.runId === undefined || r.runId === f.runId),
      )
      .sort((a, b) => b.receivedAt - a.receivedAt || b.seq - a.seq)
      .slice(0, limit)
      .map((r) => this.out(r));
  }

  async cancelQueued(changeKey: string, detail: string): Promise<RunRow[]> {
    const queued = [...this.db.runs()].filter(
      (r) => r.changeKey === changeKey && r.status === RunStatus.queued,
    );
    return queued.map((r) => this.db.abort(r, detail));
  }

  async triggerOf(runId: string): Promise<RunTrigger | null> {
    const t = this.triggers.get(runId);
    return t ? this.outTrigger(t) : null;
  }

  async claimPublication(repo: string, ttlMs: number): Promise<RunTrigger | null> {
    const now = this.db.now();
    const ended = new Set(
      [...this.db.runs()].filter((r) => r.repo === repo && isTerminal(r.status)).map((r) => r.id),
    );
    const next = [...this.triggers.values()]
      .filter(
        (t) =>
          t.publishedAt === null && ended.has(t.runId) && (t.claimedUntil === null || t.claimedUntil <= now),
      )
      .sort((a, b) => a.recordedAt - b.recordedAt || a.seq - b.seq)[0];
    if (!next) return null;
    next.claimedUntil = now + ttlMs;
    return this.outTrigger(next);
  }

  async endPublication(runId: string, detail: string): Promise<void> {
    const t = this.triggers.get(runId);
    if (t) Object.assign(t, { publishedAt: this.db.now(), detail, claimedUntil: null });
  }

  async schemaVersion(): Promise<ServiceStats['schema']> {
    return { applied: 0, wanted: 0 };
  }

  async serviceStats(): Promise<ServiceStats> {
    const now = this.db.now();
    const count = <K>(keys: K[]) => {
      const m = new Map<string, { key: K; n: number }>();
      for (const k of keys) {
        const id = JSON.stringify(k);
        const e = m.get(id) ?? { key: k, n: 0 };
        e.n++;
        m.set(id, e);
      }
      return [...m.values()];
    };
    const runs = [...this.db.runs()];
    const queued = runs.filter((r) => r.status === RunStatus.queued);
    const oldest = Math.min(...queued.map((r) => r.createdAt));
    return {
      schema: await this.schemaVersion(),
      deliveries: count([...this.rows.values()].map((r) => r.state)).map((e) => ({
        state: e.key,
        count: e.n,
      })),
      runs: count(runs.map((r) => [r.status, r.outcome ?? null] as const)).map((e) => ({
        status: e.key[0],
        outcome: e.key[1],
        count: e.n,
      })),
      queued: queued.length,
      oldestQueuedMs: queued.length ? Math.max(0, now - oldest) : null,
      spentUsd: runs.reduce((a, r) => a + r.costUsd, 0),
      spentUsd24h: runs.filter((r) => r.createdAt >= now - 86_400_000).reduce((a, r) => a + r.costUsd, 0),
    };
  }

  private out(r: Kept): DeliveryRow {
    const { claimedUntil: _c, seq: _s, ...row } = r;
    return copyJson(row);
  }

  private outTrigger(t: KeptTrigger): RunTrigger {
    const { claimedUntil: _c, recordedAt: _r, seq: _s, ...row } = t;
    return copyJson(row);
  }
}

const key = (forge: string, id: string): string => `${forge}\u0000${id}`;
