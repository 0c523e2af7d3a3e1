/**
 * Serves the dashboard on one address (127.0.0.1 unless told otherwise) and
 * returns its URL and a close function; `revloop ui` and the tests both call it.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { GitBlobs, GitDiffs, GitRevisions } from '../ports/git.js';
import type { LedgerQueries, RunLedger } from '../ports/store.js';
import { UiStartError } from './errors.js';
import type { EvalReports } from './eval-reports.js';
import { allowedHosts, newToken } from './security.js';
import { createApp } from './server.js';
import type { ServiceStore } from './service-view.js';

export interface StartUiOptions {
  store: LedgerQueries & Pick<RunLedger, 'settle'> & ServiceStore;
  repoRoot: string;
  /** Default 127.0.0.1. */
  host?: string | undefined;
  /** 0 picks a free port. Default 7357. */
  port?: number | undefined;
  /** Default: a fresh random token. */
  token?: string | undefined;
  assetRoot?: string | undefined;
  git?: (GitRevisions & GitDiffs & GitBlobs) | undefined;
  now?: (() => number) | undefined;
  evalReports?: EvalReports | null | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

export interface RunningUi {
  url: string;
  host: string;
  port: number;
  token: string;
  /** Stops accepting connections, drops idle ones and resolves when the server is closed (the store stays open). */
  close(): Promise<void>;
}

/** Listens and resolves once the port is bound; rejects with UiStartError when it cannot be. */
export async function startUi(o: StartUiOptions): Promise<RunningUi> {
  const host = o.host ?? '127.0.0.1';
  const token = o.token ?? newToken();
  let hosts: readonly string[] = [];
  const app = createApp({
    store: o.store,
    repoRoot: o.repoRoot,
    token,
    hosts: () => hosts,
    assetRoot: o.assetRoot,
    git: o.git,
    now: o.now,
    evalReports: o.evalReports,
    env: o.env,
  });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host });
  const port = await new Promise<number>((done, fail) => {
    const onError = (err: NodeJS.ErrnoException) =>
      fail(new UiStartError(host, o.port ?? 7357, err.code ?? err.message));
    server.once('error', onError);
    server.listen(o.port ?? 7357, host, () => {
      server.off('error', onError);
      done((server.address() as AddressInfo).port);
    });
  });
  hosts = allowedHosts(host, port);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    host,
    port,
    token,
    close: () =>
      new Promise<void>((done) => {
        const s = server as import('node:http').Server;
        s.close(() => done());
        s.closeIdleConnections?.();
        // Polling pages hold keep-alive sockets; closing must not wait for them to time out.
        setTimeout(() => s.closeAllConnections?.(), 200).unref();
      }),
  };
}
