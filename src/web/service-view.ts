/**
 * The dashboard's views of the webhook service: recent deliveries (filtered
 * by state and pull request) and, for one run, the pull request it answers
 * and the deliveries that admitted it. The service runs only on PostgreSQL
 * (`revloop serve` refuses SQLite), so a SQLite ledger is said to have none.
 */
import { type DeliveryFilter, type DeliveryRow, DeliveryState } from '../ports/deliveries.js';
import type { ServiceLedger, StoreLifecycle } from '../ports/store.js';
import type { DeliveryView, RunServiceView, ServiceResponse } from './view-types.js';

export type ServiceStore = ServiceLedger & Pick<StoreLifecycle, 'kind'>;

/** Deliveries the page reads at most. */
export const MAX_DELIVERIES = 500;

export const NOT_IN_USE =
  'The service is not in use: this ledger is SQLite, and `revloop serve` runs on PostgreSQL (docs/service.md).';

const STATES = Object.values(DeliveryState);

export const deliveryView = (d: DeliveryRow): DeliveryView => ({
  forge: d.forge,
  deliveryId: d.deliveryId,
  event: d.event,
  repository: d.repository,
  pr: d.pr,
  head: d.head,
  baseBranch: d.baseBranch,
  sender: d.sender,
  state: d.state,
  detail: d.detail,
  runId: d.runId,
  receivedAt: d.receivedAt,
  attempts: d.attempts,
});

/** A query's filter, or the one-line reason it is not one. */
export function parseServiceQuery(q: {
  state?: string | undefined;
  pr?: string | undefined;
}): DeliveryFilter | { error: string } {
  const filter: DeliveryFilter = {};
  const state = q.state?.trim();
  if (state) {
    const known = STATES.find((s) => s === state);
    if (!known) return { error: `state: expected one of ${STATES.join(', ')}, got ${JSON.stringify(state)}` };
    filter.state = known;
  }
  const pr = q.pr?.trim().replace(/^[#!]/, '');
  if (pr) {
    // "7", "owner/name#7", or GitLab's "group/project!7" (a project path may have more segments).
    const m = /^(?:(.+)[#!])?(\d{1,9})$/.exec(pr);
    if (!m)
      return {
        error: `pr: expected a pull request number or repository#number, got ${JSON.stringify(q.pr)}`,
      };
    filter.pr = Number(m[2]);
    if (m[1]) filter.repository = m[1];
  }
  return filter;
}

export async function serviceResponse(
  store: ServiceStore,
  filter: DeliveryFilter,
  now: number,
): Promise<ServiceResponse> {
  if (store.kind === 'sqlite') return { inUse: false, reason: NOT_IN_USE };
  const [rows, recent] = await Promise.all([
    store.deliveries.listDeliveries(MAX_DELIVERIES, filter),
    store.deliveries.listDeliveries(MAX_DELIVERIES),
  ]);
  return {
    inUse: true,
    now,
    deliveries: rows.map(deliveryView),
    states: [...new Set(recent.map((d) => d.state))].sort(),
  };
}

/** The service's part in one run, or null on a ledger without the service. */
export async function runService(store: ServiceStore, runId: string): Promise<RunServiceView | null> {
  if (store.kind === 'sqlite') return null;
  const [trigger, rows] = await Promise.all([
    store.deliveries.triggerOf(runId),
    store.deliveries.listDeliveries(MAX_DELIVERIES, { runId }),
  ]);
  return {
    trigger: trigger
      ? {
          forge: trigger.forge,
          repository: trigger.repository,
          pr: trigger.pr,
          deliveryId: trigger.deliveryId,
          publishedAt: trigger.publishedAt,
          detail: trigger.detail,
        }
      : null,
    deliveries: rows.map(deliveryView),
  };
}
