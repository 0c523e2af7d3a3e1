/**
 * `revloop serve` put together: the webhook server, the admitter beside it
 * and the reconciler, sharing one ledger and one served clone. The tests and
 * the command both call it.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { UsageError } from '../core/errors.js';
import type { OpenPull } from '../forge/pulls.js';
import type { LoopDeps } from '../loop/deps.js';
import { type AdmitterOptions, startAdmitter } from './admitter.js';
import { answersFirst } from './answers-first.js';
import { ignoreComments, type OnComment, type Served, type ServeLog, type ServePolicy } from './deps.js';
import { createServeMetrics } from './metrics.js';
import { startReconciler } from './reconciler.js';
import { createServeApp } from './router.js';

export interface StartServeOptions {
  /** The loop's deps over the service's ledger and the served clone (admission runs with them). */
  deps: LoopDeps;
  served: Served;
  policy: ServePolicy;
  secrets: () => readonly string[];
  onComment?: OnComment | undefined;
  log: ServeLog;
  host?: string | undefined;
  /** 0 picks a free port. */
  port: number;
  /** Lists the served repository's open pull requests; null turns the reconciler off. */
  listOpen: (() => Promise<OpenPull[]>) | null;
  reconcileMs: number;
  admitter?: (AdmitterOptions & { idleMs?: number | undefined }) | undefined;
}

export interface RunningServe {
  url: string;
  port: number;
  /** Stops accepting deliveries, then lets the admitter and the reconciler finish what they hold. */
  close(): Promise<void>;
}

export async function startServe(o: StartServeOptions): Promise<RunningServe> {
  const stop = new AbortController();
  const traffic = answersFirst(Date.now);
  const admitter = startAdmitter(o.deps, o.served, o.log, {
    holdOff: traffic.holdOff,
    ...o.admitter,
    signal: stop.signal,
  });
  const app = createServeApp({
    store: o.deps.store,
    served: o.served,
    policy: o.policy,
    secrets: o.secrets,
    onComment: o.onComment ?? ignoreComments,
    log: o.log,
    wake: () => {
      traffic.delivered();
      admitter.wake();
    },
    metrics: createServeMetrics(),
    crashPoint: o.deps.crashPoint,
  });
  const host = o.host ?? '127.0.0.1';
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host });
  let port: number;
  try {
    port = await new Promise<number>((done, fail) => {
      server.once('error', fail);
      server.listen(o.port, host, () => {
        server.off('error', fail);
        done((server.address() as AddressInfo).port);
      });
    });
  } catch (err) {
    stop.abort();
    await admitter.done;
    throw new UsageError(
      `revloop serve: cannot listen on ${host}:${o.port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const reconciler = o.listOpen
    ? startReconciler(o.deps.store, o.served, o.policy, o.listOpen, {
        intervalMs: o.reconcileMs,
        signal: stop.signal,
        log: o.log,
        wake: admitter.wake,
      })
    : Promise.resolve();
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: async () => {
      const s = server as import('node:http').Server;
      await new Promise<void>((done) => {
        s.close(() => done());
        s.closeIdleConnections?.();
      });
      stop.abort();
      await Promise.all([admitter.done, reconciler]);
    },
  };
}
