/** Rows of the service's tables as the ports name them, the same for every store. */

import { TERMINAL_STATUSES } from '../../core/types.js';
import type {
  DeliveryFilter,
  DeliveryForge,
  DeliveryIntent,
  DeliveryRow,
  DeliveryState,
  RunTrigger,
  ServiceStats,
} from '../../ports/deliveries.js';
import type { Raw } from './rows.js';
import { statusIn } from './status-sql.js';

const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export const toDelivery = (r: Raw): DeliveryRow => ({
  forge: String(r.forge) as DeliveryForge,
  deliveryId: String(r.delivery_id),
  bodyDigest: String(r.body_digest),
  event: String(r.event),
  intent: String(r.intent) as DeliveryIntent,
  repository: String(r.repository),
  pr: Number(r.pr),
  head: strOrNull(r.head),
  baseBranch: String(r.base_branch),
  sender: strOrNull(r.sender),
  state: String(r.state) as DeliveryState,
  detail: strOrNull(r.detail),
  runId: strOrNull(r.run_id),
  receivedAt: Number(r.received_at),
  attempts: Number(r.attempts),
});

export const toTrigger = (r: Raw): RunTrigger => ({
  runId: String(r.run_id),
  forge: String(r.forge) as DeliveryForge,
  repository: String(r.repository),
  pr: Number(r.pr),
  deliveryId: String(r.delivery_id),
  publishedAt: numOrNull(r.published_at),
  detail: strOrNull(r.detail),
});

/** The columns a new delivery is inserted with, in order. */
export const DELIVERY_COLUMNS =
  'forge, delivery_id, body_digest, event, intent, repository, pr, head, base_branch, sender, state, received_at';

/** A run that has ended, for the publication claim (the run's alias is `r`). */
export const ENDED_RUN_SQL = statusIn(TERMINAL_STATUSES, 'r.status');

/**
 * The WHERE clause (empty, or starting with ` WHERE`) of a delivery filter, with its arguments
 * in order; `param(i)` names the i-th placeholder (`?` on SQLite, `$i` on PostgreSQL).
 */
export function deliveryWhere(
  f: DeliveryFilter | undefined,
  param: (i: number) => string,
): { sql: string; args: unknown[] } {
  const parts: string[] = [];
  const args: unknown[] = [];
  const add = (column: string, value: unknown) => {
    if (value === undefined) return;
    args.push(value);
    parts.push(`${column} = ${param(args.length)}`);
  };
  add('state', f?.state);
  add('repository', f?.repository);
  add('pr', f?.pr);
  add('run_id', f?.runId);
  return { sql: parts.length ? ` WHERE ${parts.join(' AND ')}` : '', args };
}

/** The aggregate rows as numbers (PostgreSQL answers counts and sums as text; SQLite as numbers). */
export function statsOf(
  schema: ServiceStats['schema'],
  deliveries: Raw[],
  runs: Raw[],
  queue: Raw | undefined,
  spend: Raw | undefined,
): ServiceStats {
  const age = queue?.age;
  return {
    schema,
    deliveries: deliveries.map((r) => ({ state: r.state as DeliveryState, count: Number(r.n) })),
    runs: runs.map((r) => ({
      status: String(r.status),
      outcome: r.outcome == null ? null : String(r.outcome),
      count: Number(r.n),
    })),
    queued: Number(queue?.n ?? 0),
    oldestQueuedMs: age == null ? null : Math.max(0, Number(age)),
    spentUsd: Number(spend?.total ?? 0),
    spentUsd24h: Number(spend?.day ?? 0),
  };
}
