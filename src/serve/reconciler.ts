/**
 * GitHub never delivers a failed webhook again, and a service that was down
 * heard nothing: on start and every interval the reconciler lists the served
 * repository's open pull requests and records, for each head, a delivery of
 * its own (`reconcile:<pr>:<head>`). The admitter treats it as any other, and
 * admission keys make a head that was already admitted answer with its run,
 * so a missed head gets one run and a seen one gets nothing new.
 */
import { createHash } from 'node:crypto';
import type { OpenPull } from '../forge/pulls.js';
import type { Store } from '../ports/store.js';
import type { Served, ServeLog, ServePolicy } from './deps.js';

export interface ReconcileResult {
  open: number;
  recorded: number;
  skipped: number;
}

export async function reconcileOnce(
  store: Store,
  served: Served,
  policy: ServePolicy,
  list: () => Promise<OpenPull[]>,
): Promise<ReconcileResult> {
  const pulls = await list();
  let recorded = 0;
  let skipped = 0;
  for (const p of pulls) {
    // The webhook path's rules: a draft waits for review, a bot's pull request is never reviewed on its own.
    if ((p.draft && !policy.drafts) || p.authorIsBot || (p.author && policy.botLogins.includes(p.author))) {
      skipped++;
      continue;
    }
    const id = `reconcile:${p.number}:${p.head}`;
    const r = await store.deliveries.recordDelivery({
      forge: served.forge,
      deliveryId: id,
      bodyDigest: `sha256:${createHash('sha256').update(`${served.forge}\n${served.repository}\n${id}`).digest('hex')}`,
      event: 'reconcile',
      intent: 'review',
      repository: served.repository,
      pr: p.number,
      head: p.head,
      baseBranch: p.baseBranch,
      sender: null,
    });
    if (r.inserted) recorded++;
  }
  return { open: pulls.length, recorded, skipped };
}

/** Reconciles now and every `intervalMs` until `signal` aborts; a failed pass is logged and tried next time. */
export function startReconciler(
  store: Store,
  served: Served,
  policy: ServePolicy,
  list: () => Promise<OpenPull[]>,
  o: { intervalMs: number; signal: AbortSignal; log: ServeLog; wake?: (() => void) | undefined },
): Promise<void> {
  const pass = async () => {
    try {
      const r = await reconcileOnce(store, served, policy, list);
      o.log('reconciled', { ...r });
      if (r.recorded > 0) o.wake?.();
    } catch (err) {
      o.log('reconcile failed', { error: (err as Error).message.split('\n')[0] });
    }
  };
  return (async () => {
    while (!o.signal.aborted) {
      await pass();
      await new Promise<void>((done) => {
        const t = setTimeout(done, o.intervalMs);
        o.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            done();
          },
          { once: true },
        );
      });
    }
  })();
}
