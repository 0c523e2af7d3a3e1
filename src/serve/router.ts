/**
 * The webhook endpoints. In order: the body is read up to a limit (413
 * beyond it, before any parsing), the signature is checked on the raw bytes
 * (401), the payload is read (400), and what it asks is committed to the
 * ledger as one delivery row before anything is answered 2xx. No review work
 * happens here: admission runs beside the server (admitter.ts) and reviews in
 * workers. A ledger that cannot commit is 503, so the forge delivers again; a
 * sender's mistake is never a 5xx.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { isLedgerFault } from '../loop/store-patience.js';
import type { DeliveryForge } from '../ports/deliveries.js';
import type { RouterDeps } from './deps.js';
import { type Classified, classifyGitHub, classifyGitLab } from './events.js';
import { createServeMetrics } from './metrics.js';
import { githubSignatureValid, gitlabTokenValid } from './signature.js';

/** What the forge is told; `status` is the HTTP status. */
interface Answer {
  status: 200 | 202 | 400 | 401 | 413 | 503;
  body: Record<string, unknown>;
}

/** Reads at most `limit` bytes; null when the body is longer. */
async function readCapped(req: Request, limit: number): Promise<Uint8Array | null> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) return null;
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

/** The JSON payload: the body itself, or GitHub's form encoding (`payload=<json>`). */
function payloadOf(body: Uint8Array, contentType: string | null): Record<string, unknown> | null {
  let text = Buffer.from(body).toString('utf8');
  if ((contentType ?? '').startsWith('application/x-www-form-urlencoded'))
    text = new URLSearchParams(text).get('payload') ?? '';
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A delivery id as a ledger key: printable, bounded. */
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/** How long a probe or a scrape waits for the ledger before it says it did not answer. */
const PROBE_MS = 2_000;

const bounded = <T>(p: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((ok, fail) => {
    const t = setTimeout(() => fail(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        ok(v);
      },
      (err: unknown) => {
        clearTimeout(t);
        fail(err);
      },
    );
  });

/** Why the service cannot take deliveries now (one line), or null when it can. */
async function notReady(deps: RouterDeps): Promise<string | null> {
  try {
    const v = await bounded(deps.store.deliveries.schemaVersion(), PROBE_MS);
    if (v.applied < v.wanted)
      return `the ledger's schema is at migration ${v.applied}, this revloop needs ${v.wanted}`;
    return null;
  } catch (err) {
    return `the ledger is unreachable: ${((err as Error).message ?? String(err)).split('\n')[0]?.slice(0, 200)}`;
  }
}

export function createServeApp(deps: RouterDeps): Hono {
  const app = new Hono();

  const handle = async (
    forge: DeliveryForge,
    req: Request,
    authentic: (body: Uint8Array) => boolean,
    deliveryId: (digest: string) => string | null,
    classify: (payload: Record<string, unknown>) => Classified,
  ): Promise<Answer> => {
    const body = await readCapped(req, deps.policy.maxBodyBytes);
    if (!body) return { status: 413, body: { error: `body larger than ${deps.policy.maxBodyBytes} bytes` } };
    if (!authentic(body)) return { status: 401, body: { error: 'bad signature' } };
    const payload = payloadOf(body, req.headers.get('content-type'));
    if (!payload) return { status: 400, body: { error: 'the body is not a JSON object' } };
    const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const id = deliveryId(digest);
    if (id === null || !DELIVERY_ID.test(id))
      return { status: 400, body: { error: 'no valid delivery id header' } };
    const what = classify(payload);
    if (what.kind === 'malformed') return { status: 400, body: { error: what.reason, delivery: id } };
    if (what.kind === 'ignore') return { status: 200, body: { delivery: id, ignored: what.reason } };
    if (what.kind === 'comment') {
      if (what.comment.repo !== deps.served.repository || forge !== deps.served.forge)
        return { status: 200, body: { delivery: id, ignored: 'not the served repository' } };
      await deps.onComment(what.comment);
      return { status: 200, body: { delivery: id, comment: what.comment.commentId } };
    }
    const t = what.trigger;
    if (t.repository !== deps.served.repository || forge !== deps.served.forge)
      return { status: 200, body: { delivery: id, ignored: 'not the served repository' } };
    const r = await deps.store.deliveries.recordDelivery({ forge, deliveryId: id, bodyDigest: digest, ...t });
    deps.crashPoint?.('serve:after-commit');
    if (r.inserted) deps.wake?.();
    return r.inserted
      ? { status: 202, body: { delivery: id, state: r.delivery.state } }
      : { status: 200, body: { delivery: id, duplicateOf: r.delivery.deliveryId, state: r.delivery.state } };
  };

  const answer = async (
    forge: DeliveryForge,
    req: Request,
    run: () => Promise<Answer>,
  ): Promise<Response> => {
    const started = Date.now();
    let a: Answer;
    try {
      a = await run();
    } catch (err) {
      // Ours, not the sender's: the ledger (or the comment handler) failed; the forge sends it again.
      a = {
        status: 503,
        body: {
          error: isLedgerFault(err) ? 'the ledger is unavailable' : 'the delivery could not be handled',
        },
      };
      deps.log('delivery not recorded', { forge, error: (err as Error).message });
    }
    deps.metrics?.answered(
      forge,
      a.status,
      a.status === 401 ? 'bad_signature' : 'duplicateOf' in a.body ? 'duplicate' : 'other',
    );
    // The header's id names the line even when the answer came before it was read (401, 413, 503).
    const claimed = req.headers.get('x-github-delivery') ?? req.headers.get('idempotency-key');
    deps.log('delivery', {
      forge,
      delivery: claimed && DELIVERY_ID.test(claimed) ? claimed : null,
      status: a.status,
      event: req.headers.get('x-github-event') ?? req.headers.get('x-gitlab-event'),
      ms: Date.now() - started,
      ...a.body,
    });
    return Response.json(a.body, {
      status: a.status,
      headers: a.status === 503 ? { 'retry-after': '10' } : {},
    });
  };

  app.post('/webhooks/github', (c) =>
    answer('github', c.req.raw, () =>
      handle(
        'github',
        c.req.raw,
        (body) => githubSignatureValid(body, c.req.header('x-hub-signature-256'), deps.secrets()),
        () => c.req.header('x-github-delivery') ?? null,
        (p) => classifyGitHub(c.req.header('x-github-event') ?? '', p, deps.policy),
      ),
    ),
  );

  app.post('/webhooks/gitlab', (c) =>
    answer('gitlab', c.req.raw, () =>
      handle(
        'gitlab',
        c.req.raw,
        () => gitlabTokenValid(c.req.header('x-gitlab-token'), deps.secrets()),
        // GitLab retries a delivery under the same Idempotency-Key; older GitLabs send only the event UUID.
        (digest) =>
          c.req.header('idempotency-key') ?? c.req.header('x-gitlab-event-uuid') ?? `body-${digest.slice(7)}`,
        (p) => classifyGitLab(p, deps.policy),
      ),
    ),
  );

  app.get('/healthz', (c) => c.json({ ok: true }));

  app.get('/readyz', async (c) => {
    const why = await notReady(deps);
    return why === null ? c.text('ready\n') : c.text(`not ready: ${why}\n`, 503);
  });

  app.get('/metrics', async (c) => {
    const stats = await bounded(deps.store.deliveries.serviceStats(), PROBE_MS).catch((err: unknown) => {
      deps.log('metrics: the ledger did not answer', { error: (err as Error).message.split('\n')[0] });
      return null;
    });
    const metrics = deps.metrics ?? createServeMetrics();
    return c.body(metrics.render(stats), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  });
  return app;
}
