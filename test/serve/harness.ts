/**
 * The webhook service's test bench, all real parts: a "forge" repository
 * (the origin, with the pull request's head at refs/pull/N/head and
 * refs/merge-requests/N/head as the forges keep them), the served clone,
 * the real PostgreSQL behind a TCP proxy a test can cut, the loopback GitHub
 * of the forge tests, and `revloop serve` started in-process. Deliveries are
 * signed as GitHub signs them and sent with fetch.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listOpenPulls } from '../../src/forge/index.js';
import { composeDeps } from '../../src/loop/compose.js';
import type { LoopDeps } from '../../src/loop/deps.js';
import type { DeliveryRow } from '../../src/ports/deliveries.js';
import type { Store } from '../../src/ports/store.js';
import type { ServeLimits } from '../../src/serve/admitter.js';
import type { OnComment, ServePolicy } from '../../src/serve/deps.js';
import { type RunningServe, startServe } from '../../src/serve/start.js';
import { openStore } from '../../src/store/index.js';
import type { FakeGitHub } from '../forge/fake-github.js';
import { pushTo, TOKENS } from '../forge/setup.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import {
  baseConfig,
  findings,
  makeReviewRepo,
  type ReviewRepo,
  raceFinding,
  testEnv,
} from '../loop/helpers.js';

export const SECRET = 'webhook-secret-current-0001';
export const PREVIOUS = 'webhook-secret-previous-0002';

/** A TCP proxy in front of PostgreSQL: `cut()` drops every connection and refuses new ones, `mend()` lets them through again. */
export interface LedgerProxy {
  url: string;
  cut(): Promise<void>;
  mend(): Promise<void>;
  close(): Promise<void>;
}

export async function ledgerProxy(target: string): Promise<LedgerProxy> {
  const t = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((done) => {
      const listening = createServer((client) => {
        const up = new Socket();
        sockets.add(client).add(up);
        const drop = () => {
          client.destroy();
          up.destroy();
          sockets.delete(client);
          sockets.delete(up);
        };
        client.on('error', drop).on('close', drop);
        up.on('error', drop).on('close', drop);
        up.connect(Number(t.port || 5432), t.hostname, () => {
          client.pipe(up).pipe(client);
        });
      });
      server = listening;
      listening.listen(port, '127.0.0.1', () => {
        port = (listening.address() as { port: number }).port;
        done();
      });
    });
  await listen();
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const stop = () =>
    new Promise<void>((done) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (!server) return done();
      server.close(() => done());
      server = null;
    });
  return { url: url.toString(), cut: stop, mend: listen, close: stop };
}

export interface Bench {
  r: ReviewRepo;
  /** The loop's deps over the served clone and the service's ledger (as the service has them). */
  deps: LoopDeps;
  /** The served clone (its origin is `r.dir`). */
  clone: string;
  store: Store;
  serve: RunningServe;
  logs: Record<string, unknown>[];
  /** Moves pull request `pr`'s head on the forge (origin) to a new commit that touches `file`. */
  push(pr: number, file: string): string;
  /** Points the forge's pull request refs at `sha`. */
  setPull(pr: number, sha: string): void;
  close(): Promise<void>;
}

export interface BenchOptions {
  storeUrl: string;
  forge?: 'github' | 'gitlab';
  gh?: FakeGitHub | undefined;
  policy?: Partial<ServePolicy>;
  secrets?: readonly string[];
  onComment?: OnComment;
  reconcileMs?: number;
  /** The pause check the admitter asks before a review (`/revloop pause`). */
  isPaused?: (pr: number) => Promise<boolean>;
  /** The served repository's admission limits (`--max-active-runs`, `--daily-spend-usd`). */
  limits?: ServeLimits;
}

export async function bench(o: BenchOptions): Promise<Bench> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  r.plan({ reviewer: [{ reply: findings(raceFinding()) }] });
  const setPull = (pr: number, sha: string) => {
    r.repo.git(['update-ref', `refs/pull/${pr}/head`, sha]);
    r.repo.git(['update-ref', `refs/merge-requests/${pr}/head`, sha]);
  };
  setPull(7, r.head);
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'revloop-served-')));
  const clone = join(parent, 'clone');
  execFileSync('git', ['clone', '-q', r.dir, clone], { env: TEST_GIT_ENV });
  const store = await openStore(o.storeUrl);
  const logs: Record<string, unknown>[] = [];
  const forge = o.forge ?? 'github';
  const policy: ServePolicy = {
    drafts: false,
    botLogins: ['revloop-bot'],
    maxBodyBytes: 64 * 1024,
    ...o.policy,
  };
  const gh = o.gh;
  if (gh) pushTo(gh, r.repo, 7, r.base, r.head);
  const serve = await startServe({
    deps: composeDeps({ store, repoRoot: clone, env: testEnv() }),
    served: { forge, repository: 'acme/widgets', repoRoot: clone, remote: 'origin' },
    policy,
    secrets: () => o.secrets ?? [SECRET],
    onComment: o.onComment,
    log: (msg, fields) => logs.push({ msg, ...fields }),
    port: 0,
    listOpen: gh
      ? () =>
          listOpenPulls({ forge: 'github', repository: 'acme/widgets', apiUrl: gh.url, token: TOKENS.app })
      : null,
    reconcileMs: o.reconcileMs ?? 3_600_000,
    admitter: { idleMs: 50, retryMs: 50, isPaused: o.isPaused, limits: o.limits },
  });
  let n = 0;
  return {
    r,
    clone,
    store,
    serve,
    deps: composeDeps({ store, repoRoot: clone, env: testEnv() }),
    logs,
    setPull,
    push(pr, file) {
      r.repo.write(file, `// push ${++n}\n`);
      const sha = r.repo.commit(`push ${n}`);
      setPull(pr, sha);
      if (gh) pushTo(gh, r.repo, pr, r.base, sha);
      return sha;
    },
    async close() {
      await serve.close();
      await store.close();
      await r.cleanup();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

/** A `pull_request` payload in GitHub's shape (the fields a receiver reads, and the usual company). */
export function pullRequestPayload(o: {
  action: string;
  pr?: number;
  head: string;
  base?: string;
  draft?: boolean;
  sender?: { login: string; type: 'User' | 'Bot' };
  repository?: string;
}) {
  const repository = o.repository ?? 'acme/widgets';
  const sender = { id: 1, node_id: 'U_1', ...(o.sender ?? { login: 'alice', type: 'User' }) };
  return {
    action: o.action,
    number: o.pr ?? 7,
    pull_request: {
      url: `https://api.github.com/repos/${repository}/pulls/${o.pr ?? 7}`,
      id: 1000 + (o.pr ?? 7),
      number: o.pr ?? 7,
      state: o.action === 'closed' ? 'closed' : 'open',
      draft: o.draft ?? false,
      title: 'Add deposit',
      user: sender,
      head: { label: 'acme:topic', ref: 'topic', sha: o.head, repo: { full_name: repository } },
      base: {
        label: 'acme:main',
        ref: o.base ?? 'main',
        sha: 'b'.repeat(40),
        repo: { full_name: repository },
      },
    },
    repository: { id: 42, full_name: repository, name: repository.split('/')[1], private: false },
    sender,
  };
}

/** A merge request hook payload in GitLab's shape. */
export function mergeRequestPayload(o: {
  action: string;
  iid?: number;
  head: string;
  oldrev?: string;
  hookId?: number;
  username?: string;
}) {
  return {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: { id: 1, name: 'Alice', username: o.username ?? 'alice' },
    project: { id: 42, path_with_namespace: 'acme/widgets', web_url: 'https://gitlab.example/acme/widgets' },
    object_attributes: {
      iid: o.iid ?? 7,
      action: o.action,
      state: 'opened',
      source_branch: 'topic',
      target_branch: 'main',
      draft: false,
      work_in_progress: false,
      last_commit: { id: o.head },
      ...(o.oldrev ? { oldrev: o.oldrev } : {}),
    },
    // Two hooks (a project's and its group's) send the same event with their own ids.
    ...(o.hookId === undefined ? {} : { hook: { id: o.hookId } }),
  };
}

export interface Sent {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs a signed GitHub delivery; `secret: null` sends no signature, `raw` overrides the body bytes. */
export async function sendGitHub(
  url: string,
  event: string,
  payload: unknown,
  o: { secret?: string | null; id?: string; raw?: string; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const body = o.raw ?? JSON.stringify(payload);
  const secret = o.secret === undefined ? SECRET : o.secret;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': o.id ?? randomUUID(),
    'user-agent': 'GitHub-Hookshot/test',
    ...o.headers,
  };
  if (secret !== null && !o.headers?.['x-hub-signature-256'])
    headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const res = await fetch(`${url}/webhooks/github`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

export async function sendGitLab(
  url: string,
  payload: unknown,
  o: { token?: string | null; key?: string; event?: string } = {},
): Promise<Sent> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-gitlab-event': o.event ?? 'Merge Request Hook',
    'idempotency-key': o.key ?? randomUUID(),
  };
  const token = o.token === undefined ? SECRET : o.token;
  if (token !== null) headers['x-gitlab-token'] = token;
  const res = await fetch(`${url}/webhooks/gitlab`, {
    method: 'POST',
    headers,
    body: JSON.stringify(payload),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

/** Waits until no delivery is pending (the admitter polls every 50 ms); a bound, not a verdict. */
export async function settled(store: Store, within = 60_000): Promise<DeliveryRow[]> {
  const until = Date.now() + within;
  for (;;) {
    const all = await store.deliveries.listDeliveries(1000);
    if (all.every((d) => d.state !== 'pending')) return all;
    if (Date.now() > until) throw new Error(`deliveries still pending: ${JSON.stringify(all)}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}
