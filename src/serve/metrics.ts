/**
 * `/metrics` in Prometheus's text exposition format (version 0.0.4). What
 * the server answered since it started is counted in this process (a
 * restart starts again from zero, as Prometheus counters expect); what the
 * ledger holds (deliveries by state, the queue, runs by outcome, spend) is
 * read at scrape time, one aggregate query each, so every server of a fleet
 * reports the same ledger. Labels carry only forge names, HTTP statuses and
 * ledger states: never a secret, a token, a repository URL or a delivery id.
 */
import { type RateLimitReading, rateLimitReadings } from '../forge/rate-limits.js';
import type { ServiceStats } from '../ports/deliveries.js';

export interface ServeMetrics {
  /** One answered webhook: its forge, its HTTP status, and what it was. */
  answered(forge: string, status: number, kind: 'duplicate' | 'bad_signature' | 'other'): void;
  /** The exposition: the process's counters, then the ledger's gauges (or `revloop_ledger_up 0`). */
  render(stats: ServiceStats | null): string;
}

/** Escapes a label value as the format requires: backslash, double quote and line feed. */
export const labelValue = (v: string): string =>
  v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');

const labels = (l: Record<string, string>): string => {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${labelValue(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};

/** A number as the format writes it (integers plainly, NaN and infinities by name). */
const num = (n: number): string =>
  Number.isNaN(n) ? 'NaN' : n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : String(n);

interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: { labels: Record<string, string>; value: number }[];
}

const family = (f: Family): string =>
  [
    `# HELP ${f.name} ${f.help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')}`,
    `# TYPE ${f.name} ${f.type}`,
    ...f.samples.map((s) => `${f.name}${labels(s.labels)} ${num(s.value)}`),
  ].join('\n');

/** One sample per forge and resource the forge has reported a rate limit for. */
const rateLimitSamples = (value: (r: RateLimitReading) => number) =>
  rateLimitReadings().map((r) => ({ labels: { forge: r.forge, resource: r.resource }, value: value(r) }));

export function createServeMetrics(): ServeMetrics {
  const requests = new Map<string, { forge: string; status: string; n: number }>();
  const duplicates = new Map<string, number>();
  const badSignatures = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  return {
    answered(forge, status, kind) {
      const key = `${forge} ${status}`;
      const e = requests.get(key) ?? { forge, status: String(status), n: 0 };
      e.n++;
      requests.set(key, e);
      if (kind === 'duplicate') bump(duplicates, forge);
      if (kind === 'bad_signature') bump(badSignatures, forge);
    },
    render(stats) {
      const byForge = (m: Map<string, number>) =>
        [...m].map(([forge, value]) => ({ labels: { forge }, value }));
      const out: Family[] = [
        {
          name: 'revloop_webhook_requests_total',
          help: 'Webhook deliveries answered by this process, by forge and HTTP status.',
          type: 'counter',
          samples: [...requests.values()].map((e) => ({
            labels: { forge: e.forge, status: e.status },
            value: e.n,
          })),
        },
        {
          name: 'revloop_webhook_duplicates_total',
          help: 'Deliveries this process answered as a duplicate of one already recorded.',
          type: 'counter',
          samples: byForge(duplicates),
        },
        {
          name: 'revloop_webhook_invalid_signatures_total',
          help: 'Deliveries this process refused for a missing or wrong signature or token (401).',
          type: 'counter',
          samples: byForge(badSignatures),
        },
        {
          name: 'revloop_forge_rate_limit_remaining',
          help: "Requests left in the forge's current rate-limit window, as its last answer to this process said.",
          type: 'gauge',
          samples: rateLimitSamples((r) => r.remaining),
        },
        {
          name: 'revloop_forge_rate_limit_reset_timestamp_seconds',
          help: "When the forge's current rate-limit window resets, in Unix seconds.",
          type: 'gauge',
          samples: rateLimitSamples((r) => r.resetAt),
        },
        {
          name: 'revloop_ledger_up',
          help: 'Whether the ledger answered this scrape (1) or not (0).',
          type: 'gauge',
          samples: [{ labels: {}, value: stats ? 1 : 0 }],
        },
      ];
      if (stats)
        out.push(
          {
            name: 'revloop_deliveries',
            help: 'Deliveries recorded in the ledger, by state.',
            type: 'gauge',
            samples: stats.deliveries.map((d) => ({ labels: { state: d.state }, value: d.count })),
          },
          {
            name: 'revloop_queue_depth',
            help: 'Runs queued in the ledger, waiting for a worker.',
            type: 'gauge',
            samples: [{ labels: {}, value: stats.queued }],
          },
          {
            name: 'revloop_queue_oldest_age_seconds',
            help: 'Age of the oldest queued run (0 with none queued).',
            type: 'gauge',
            samples: [{ labels: {}, value: (stats.oldestQueuedMs ?? 0) / 1000 }],
          },
          {
            name: 'revloop_runs',
            help: 'Runs in the ledger, by status and outcome (outcome is empty until a run completes).',
            type: 'gauge',
            samples: stats.runs.map((r) => ({
              labels: { status: r.status, outcome: r.outcome ?? '' },
              value: r.count,
            })),
          },
          {
            name: 'revloop_spend_usd',
            help: "Cost spent by the ledger's runs, in US dollars: all of them, and those created in the last 24 hours.",
            type: 'gauge',
            samples: [
              { labels: { window: 'all' }, value: stats.spentUsd },
              { labels: { window: '24h' }, value: stats.spentUsd24h },
            ],
          },
        );
      return `${out.map(family).join('\n')}\n`;
    },
  };
}
