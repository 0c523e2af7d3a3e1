// The fault campaign's serve scenario (campaign.mjs --serve): `revloop serve` as a process
// on the campaign's own PostgreSQL cluster, fed signed GitHub deliveries (exact redeliveries
// and newer heads of the same pull requests among them) by senders that retry a 503 or a
// refused or dropped connection, while faults drawn from the seed hit the service (SIGKILL,
// SIGTERM, each followed by a new process on the same port) and the server (restarts, ended
// sessions, a short outage). Its admitter fetches each head from a loopback forge and admits
// runs; no worker runs. Judged from the ledger once no delivery is pending: every
// acknowledged delivery kept, deliveries recorded = distinct deliveries sent, exactly one
// run per (pull request, head) and one for every pull request's final head.
import { join } from 'node:path';
import {
  buildForge,
  deliveryStream,
  drained,
  freePort,
  judgeLedger,
  send,
  sleep,
  startService,
} from '../../bench/lib/serve-load.mjs';
import { adminQuery, untilUp } from './faults.mjs';
import { CRASH_TEXT } from './workers.mjs';

/** The serve scenario's faults, with how often each is drawn. */
export const SERVE_KINDS = {
  'serve-kill': 3,
  'serve-restart': 1,
  'pg-restart-fast': 1,
  'pg-restart-immediate': 2,
  'pg-terminate': 2,
  'pg-down': 1,
};

function drawServeFault(rand, downMs) {
  const total = Object.values(SERVE_KINDS).reduce((a, b) => a + b, 0);
  let x = rand() * total;
  for (const [kind, w] of Object.entries(SERVE_KINDS)) {
    if (x < w) return kind === 'pg-down' ? { kind, ms: downMs } : { kind };
    x -= w;
  }
  return { kind: 'serve-kill' };
}

/**
 * Runs the scenario. `o`: { rand, cluster, adminUrl, db, work, deliveries, faults, downMs,
 * senders, log }. Returns the summary: counts the campaign's targets are on.
 */
export async function serveScenario(o) {
  const url = o.adminUrl.replace(/\/postgres$/, `/${o.db}`);
  const prs = Math.max(1, Math.round((o.deliveries * 0.7) / 7));
  const { forge, clone, heads } = buildForge(o.work, prs, 3);
  const stream = deliveryStream(o.rand, heads, { tag: 'camp', dupShare: 0.3 });
  const plan = Array.from({ length: o.faults }, () => drawServeFault(o.rand, o.downMs));
  const port = await freePort();
  const logFile = join(o.work, 'serve.log');
  const started = [];
  const begin = async () => {
    const svc = await startService({ clone, url, port, logFile });
    started.push(svc);
    return svc;
  };
  let service = await begin();
  const exits = [];
  const injected = {};
  // Fault k waits for delivery (k + 1) * n / (faults + 1) to be taken, so every fault meets live sends.
  let taken = 0;
  const faulting = (async () => {
    for (let k = 0; k < plan.length; k++) {
      const f = plan[k];
      while (taken < Math.floor(((k + 1) * stream.length) / (plan.length + 1))) await sleep(20);
      if (f.kind === 'serve-kill' || f.kind === 'serve-restart') {
        if (f.kind === 'serve-kill') await service.kill();
        else exits.push(await service.stop());
        await untilUp(o.adminUrl);
        service = await begin();
      } else if (f.kind === 'pg-terminate') {
        await adminQuery(
          o.adminUrl,
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${o.db}' AND pid <> pg_backend_pid()`,
        );
      } else {
        await o.cluster.stop(f.kind === 'pg-restart-fast' ? 'fast' : 'immediate');
        if (f.ms) await sleep(f.ms);
        await o.cluster.start();
      }
      await untilUp(o.adminUrl);
      injected[f.kind] = (injected[f.kind] ?? 0) + 1;
      o.log(`serve fault ${k + 1}/${plan.length}: ${f.kind}${f.ms ? ` ${f.ms} ms` : ''}`);
    }
  })();
  const sent = await send(stream, {
    url: `http://127.0.0.1:${port}`,
    forge,
    senders: o.senders,
    retryMs: 200,
    // A little space between deliveries, so the faults meet a stream rather than its end.
    at: async (i) => {
      taken = i;
      await sleep(5);
    },
  });
  taken = stream.length;
  await faulting;
  const drainS = await drained(url, 10 * 60_000);
  exits.push(await service.stop());
  const v = await judgeLedger(url, stream, sent.acked, heads);
  // SIGTERM ends the service with 0; anything else, or a stack trace on its stderr, is a crash.
  const crashes = [
    ...exits
      .filter((e) => e?.code !== 0)
      .map((e) => `revloop serve ended ${e ? (e.code ?? e.sig) : 'only on SIGKILL after SIGTERM'}`),
    ...started
      .filter((svc) => CRASH_TEXT.test(svc.stderr()))
      .map((svc) => `revloop serve wrote a stack trace: ${svc.stderr().trim().split('\n')[0]}`),
  ];
  return {
    deliveriesSent: stream.length,
    distinct: v.distinct,
    recorded: v.recorded,
    acknowledged: v.acked,
    unavailable: sent.unavailable,
    refusedOrDropped: sent.errors,
    states: v.states,
    runs: v.runs,
    faults: Object.values(injected).reduce((a, b) => a + b, 0),
    faultsByKind: injected,
    drained: drainS !== null,
    deliveriesLost: v.lost,
    deliveriesMissing:
      v.recorded === v.distinct ? [] : [`${v.distinct - v.recorded} distinct deliveries not recorded`],
    runsTwice: v.twice,
    finalHeadsWithoutRun: v.finalMissing.map((n) => `pull request ${n}`),
    crashes,
  };
}
