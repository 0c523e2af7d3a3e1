// The webhook service under load, all real parts, shared by the bench
// (bench/serve-load.bench.mjs) and the fault campaign's serve scenario
// (test/faults/serve-scenario.mjs): a bare "forge" repository with the pull
// requests' heads at refs/pull/N/head, the served clone (its origin is the
// forge), `revloop serve` as a process on a fixed port, and a stream of signed
// GitHub deliveries (exact redeliveries, newer heads of the same pull requests)
// sent by concurrent senders that retry on a 503 or a refused or dropped
// connection, as GitHub's redelivery and GitLab's retries do.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { buildTemplate, git, gitEnv } from '../../test/crash/template.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist/cli/main.js');
export const SECRET = 'bench-webhook-secret-0001';
export const REPOSITORY = 'acme/widgets';
const run = promisify(execFile);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/**
 * The forge (a bare repository: main with the config, and `heads` commits per pull request
 * off the crash harness's feature, each adding a file of its own so every head is its own
 * revision) and the served clone. Returns each pull request's heads, oldest first; every
 * refs/pull/N/head starts at the first.
 */
export function buildForge(work, prs, headsPerPr) {
  const template = join(work, 'template');
  buildTemplate(template, { bugs: 1 });
  const forge = join(work, 'forge.git');
  git(work, ['clone', '--quiet', '--bare', template, forge]);
  const feature = git(forge, ['rev-parse', 'feature']);
  // One git fast-import for every head: thousands of commits in a second.
  const lines = [];
  let mark = 0;
  for (let n = 1; n <= prs; n++)
    for (let k = 0; k < headsPerPr; k++) {
      const body = `pull request ${n}, head ${k}\n`;
      const msg = `pr ${n} head ${k}`;
      lines.push(
        `commit refs/bench/${n}/${k}`,
        `mark :${++mark}`,
        'committer Bench <bench@example.com> 1700000000 +0000',
        `data ${Buffer.byteLength(msg)}`,
        msg,
        `from ${feature}`,
        `M 100644 inline docs/prs/${n}.md`,
        `data ${Buffer.byteLength(body)}`,
        body,
      );
    }
  const marks = join(work, 'marks');
  const fi = spawnSync('git', ['fast-import', '--quiet', `--export-marks=${marks}`], {
    cwd: forge,
    input: `${lines.join('\n')}\n`,
    env: gitEnv(),
    encoding: 'utf8',
  });
  if (fi.status !== 0) throw new Error(`git fast-import failed: ${fi.stderr}`);
  const shas = new Map(
    spawnSync('cat', [marks], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .map((l) => {
        const [m, sha] = l.split(' ');
        return [Number(m.slice(1)), sha];
      }),
  );
  const heads = new Map();
  mark = 0;
  const refs = [];
  for (let n = 1; n <= prs; n++) {
    const hs = [];
    for (let k = 0; k < headsPerPr; k++) hs.push(shas.get(++mark));
    heads.set(n, hs);
    refs.push(`update refs/pull/${n}/head ${hs[0]}`);
  }
  const up = spawnSync('git', ['update-ref', '--stdin'], {
    cwd: forge,
    input: `${refs.join('\n')}\n`,
    env: gitEnv(),
    encoding: 'utf8',
  });
  if (up.status !== 0) throw new Error(`git update-ref failed: ${up.stderr}`);
  const clone = join(work, 'clone');
  git(work, ['clone', '--quiet', forge, clone]);
  return { forge, clone, heads };
}

/**
 * The deliveries, in sending order, from `rand`: per pull request, the first head's
 * opened, ready_for_review and reopened, then each newer head's synchronize followed by a
 * reopened or ready_for_review of it (with 3 heads: 7 distinct deliveries, 2 of them newer heads); pull requests interleaved at random; then `dupShare`
 * of the total are exact copies (same id, same bytes) of an earlier delivery, each sent a
 * little after (or beside) its original.
 */
export function deliveryStream(rand, heads, o) {
  const perPr = [];
  for (const [n, hs] of heads) {
    const evs = [];
    const add = (action, k) =>
      evs.push({
        id: `${o.tag}-${n}-${evs.length}`,
        pr: n,
        k,
        head: hs[k],
        action,
        newer: action === 'synchronize',
      });
    add('opened', 0);
    add('ready_for_review', 0);
    add('reopened', 0);
    for (let k = 1; k < hs.length; k++) {
      add('synchronize', k);
      add(k % 2 ? 'reopened' : 'ready_for_review', k);
    }
    perPr.push(evs);
  }
  const stream = [];
  const cursors = perPr.map(() => 0);
  const live = perPr.map((_, i) => i);
  while (live.length > 0) {
    const j = Math.floor(rand() * live.length);
    const i = live[j];
    stream.push(perPr[i][cursors[i]++]);
    if (cursors[i] === perPr[i].length) live.splice(j, 1);
  }
  const originals = stream.length;
  const dups = Math.round((originals * o.dupShare) / (1 - o.dupShare));
  const keyed = stream.map((d, i) => ({ d, key: i }));
  for (let c = 0; c < dups; c++) {
    const i = Math.floor(rand() * originals);
    keyed.push({ d: { ...stream[i], dup: true }, key: i + 0.5 + rand() * 300 });
  }
  keyed.sort((a, b) => a.key - b.key);
  return keyed.map((x) => x.d);
}

/** The delivery's bytes, in GitHub's shape; `updated_at` makes each distinct delivery's body its own. */
export function bodyOf(d) {
  const sender = { login: 'alice', id: 1, type: 'User' };
  return JSON.stringify({
    action: d.action,
    number: d.pr,
    pull_request: {
      url: `https://api.github.com/repos/${REPOSITORY}/pulls/${d.pr}`,
      id: 1000 + d.pr,
      number: d.pr,
      state: 'open',
      draft: false,
      title: `Change ${d.pr}`,
      updated_at: `2026-12-07T00:00:00Z#${d.id}`,
      user: sender,
      head: { label: 'acme:topic', ref: `topic-${d.pr}`, sha: d.head, repo: { full_name: REPOSITORY } },
      base: { label: 'acme:main', ref: 'main', sha: 'b'.repeat(40), repo: { full_name: REPOSITORY } },
    },
    repository: { id: 42, full_name: REPOSITORY, name: 'widgets', private: false },
    sender,
  });
}

/** `revloop serve` as a process on `port`; resolves once it logs that it listens. Logs go to `logFile`. */
export async function startService({ clone, url, port, logFile }) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--repo',
      clone,
      '--store',
      url,
      '--repository',
      REPOSITORY,
      '--port',
      String(port),
      '--reconcile-seconds',
      '0',
    ],
    { cwd: clone, env: gitEnv({ REVLOOP_WEBHOOK_SECRET: SECRET }), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = createWriteStream(logFile, { flags: 'a' });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
    out.write(c);
  });
  let buf = '';
  const listening = new Promise((ok, fail) => {
    child.stdout.on('data', (c) => {
      out.write(c);
      if (buf === null) return;
      buf += c;
      if (buf.includes('"msg":"listening"')) {
        buf = null;
        ok();
      }
    });
    child.once('exit', (code, sig) =>
      fail(new Error(`revloop serve exited ${code ?? sig}: ${stderr.trim()}`)),
    );
  });
  await listening;
  const exited = new Promise((ok) => child.once('close', (code, sig) => ok({ code, sig })));
  return {
    child,
    stderr: () => stderr,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      const r = await Promise.race([exited, sleep(30_000).then(() => null)]);
      if (!r) child.kill('SIGKILL');
      await exited;
      out.end();
      return r;
    },
  };
}

/**
 * Sends `stream` to `url` with `senders` concurrent senders. A newer head moves the forge's
 * refs/pull/N/head first (only ever forward). Every attempt's answer time is kept; a 503 or a
 * connection refused or dropped is sent again (same id, same bytes) after `retryMs`, until a
 * 2xx. `at(i)` is called as delivery i is taken (the faults hook in there).
 */
export async function send(stream, o) {
  const attempts = []; // [ms, status] (status 0: no answer)
  const acked = new Set();
  const livePos = new Map();
  const chains = new Map();
  const moveTo = (d) => {
    const prev = chains.get(d.pr) ?? Promise.resolve();
    const next = prev.then(async () => {
      if ((livePos.get(d.pr) ?? 0) >= d.k) return;
      await run('git', ['update-ref', `refs/pull/${d.pr}/head`, d.head], { cwd: o.forge, env: gitEnv() });
      livePos.set(d.pr, d.k);
    });
    chains.set(d.pr, next);
    return next;
  };
  let next = 0;
  let errors = 0;
  let unavailable = 0;
  let others = 0;
  const sender = async () => {
    for (;;) {
      const i = next++;
      if (i >= stream.length) return;
      await o.at?.(i);
      const d = stream[i];
      if (d.newer) await moveTo(d);
      const body = bodyOf(d);
      const sig = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      for (;;) {
        const t0 = performance.now();
        let status = 0;
        try {
          const res = await fetch(`${o.url}/webhooks/github`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-github-event': 'pull_request',
              'x-github-delivery': d.id,
              'x-hub-signature-256': sig,
              'user-agent': 'GitHub-Hookshot/bench',
            },
            body,
            signal: AbortSignal.timeout(60_000),
          });
          await res.arrayBuffer();
          status = res.status;
        } catch {
          status = 0;
        }
        attempts.push([performance.now() - t0, status]);
        if (status === 200 || status === 202) {
          acked.add(d.id);
          break;
        }
        if (status === 0) errors++;
        else if (status === 503) unavailable++;
        else {
          others++;
          throw new Error(`delivery ${d.id} answered ${status}: the sender's mistake is not expected here`);
        }
        await sleep(o.retryMs ?? 200);
      }
    }
  };
  await Promise.all(Array.from({ length: o.senders }, sender));
  return { attempts, acked, errors, unavailable, others };
}

/** Percentile `p` (0-100) of sorted `xs`. */
export const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))];

/** Waits until the ledger holds no pending delivery, asking through transient faults; the seconds it took, or null past `limitMs`. */
export async function drained(url, limitMs) {
  const t0 = Date.now();
  for (;;) {
    try {
      const { rows } = await query(url, "SELECT count(*)::int AS n FROM deliveries WHERE state = 'pending'");
      if (rows[0].n === 0) return (Date.now() - t0) / 1000;
    } catch {}
    if (Date.now() - t0 > limitMs) return null;
    await sleep(500);
  }
}

export async function query(url, sql, params = []) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  c.on('error', () => {});
  await c.connect();
  try {
    return await c.query(sql, params);
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * What the ledger says after the stream: deliveries recorded against the distinct ids sent,
 * acknowledged ids missing, deliveries by state, and runs per (pull request, head): more than
 * one is a second run for one revision; the final head of each pull request must have one.
 */
export async function judgeLedger(url, stream, acked, heads) {
  const ids = new Set(stream.map((d) => d.id));
  const rec = (await query(url, 'SELECT delivery_id, state, pr FROM deliveries')).rows;
  const recorded = new Set(rec.map((r) => r.delivery_id));
  const lost = [...acked].filter((id) => !recorded.has(id));
  const strangers = [...recorded].filter((id) => !ids.has(id));
  const states = {};
  for (const r of rec) states[r.state] = (states[r.state] ?? 0) + 1;
  const runs = (await query(url, 'SELECT id, change_key, head, status FROM runs')).rows;
  const per = new Map();
  for (const r of runs) {
    const pr = Number(/#pull\/(\d+)$/.exec(r.change_key)?.[1]);
    const key = `${pr} ${r.head}`;
    per.set(key, (per.get(key) ?? 0) + 1);
  }
  const twice = [...per].filter(([, c]) => c > 1).map(([k, c]) => `${k}: ${c} runs`);
  const known = new Set([...heads].flatMap(([n, hs]) => hs.map((h) => `${n} ${h}`)));
  const unknown = [...per.keys()].filter((k) => !known.has(k));
  const finalMissing = [...heads].filter(([n, hs]) => !per.has(`${n} ${hs.at(-1)}`)).map(([n]) => n);
  return {
    distinct: ids.size,
    recorded: recorded.size,
    acked: acked.size,
    lost,
    strangers,
    states,
    runs: runs.length,
    revisions: per.size,
    twice,
    unknown,
    finalMissing,
  };
}
