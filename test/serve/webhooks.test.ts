/**
 * `revloop serve`'s webhook endpoints against the real PostgreSQL, a real
 * served clone and signed deliveries sent with fetch: the signature first,
 * one delivery row committed before any 2xx, and exactly one run per
 * revision however often or however many hooks tell it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import {
  type Bench,
  bench,
  ledgerProxy,
  mergeRequestPayload,
  PREVIOUS,
  pullRequestPayload,
  SECRET,
  sendGitHub,
  sendGitLab,
  settled,
} from './harness.js';

let db: TestDatabase;
let b: Bench | null = null;

beforeAll(async () => {
  db = await createTestDatabase('revloop_serve');
});
afterAll(async () => {
  await db?.drop();
});
afterEach(async () => {
  await b?.close();
  b = null;
  await db.truncate();
});

const start = async (o: Partial<Parameters<typeof bench>[0]> = {}) => {
  b = await bench({ storeUrl: db.url, ...o });
  return b;
};

describe('signatures (checked first, on the raw body)', () => {
  it('answers 401 to a missing, wrong or tampered signature and records nothing', async () => {
    const { serve, store, r } = await start();
    const payload = pullRequestPayload({ action: 'opened', head: r.head });
    expect((await sendGitHub(serve.url, 'pull_request', payload, { secret: null })).status).toBe(401);
    expect((await sendGitHub(serve.url, 'pull_request', payload, { secret: 'not-the-secret' })).status).toBe(
      401,
    );
    const tampered = await sendGitHub(serve.url, 'pull_request', payload, {
      headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
    });
    expect(tampered.status).toBe(401);
    // Malformed JSON with a bad signature is still 401: nothing is parsed before the signature holds.
    expect(
      (await sendGitHub(serve.url, 'pull_request', null, { raw: '{not json', secret: 'x' })).status,
    ).toBe(401);
    expect(await store.deliveries.listDeliveries(10)).toEqual([]);
    expect(await store.listRuns()).toEqual([]);
  });

  it('accepts the current and the previous secret during a rotation, and nothing else', async () => {
    const { serve, store, r } = await start({ secrets: [SECRET, PREVIOUS] });
    const signedNew = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({ action: 'opened', head: r.head }),
    );
    const signedOld = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({ action: 'reopened', head: r.head }),
      { secret: PREVIOUS },
    );
    const other = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({ action: 'synchronize', head: r.head }),
      { secret: 'webhook-secret-retired-0000' },
    );
    expect([signedNew.status, signedOld.status, other.status]).toEqual([202, 202, 401]);
    const all = await settled(store);
    expect(all).toHaveLength(2);
    // Both admit the same revision: one run.
    expect(new Set(all.map((d) => d.runId)).size).toBe(1);
    expect(await store.listRuns()).toHaveLength(1);
  });
});

describe('bad input is the sender’s: never a 5xx', () => {
  it('413 for an oversized body, 400 for malformed JSON or a payload missing its fields, 2xx for what it ignores', async () => {
    const { serve, store, r } = await start({ policy: { maxBodyBytes: 4096 } });
    const big = { ...pullRequestPayload({ action: 'opened', head: r.head }), padding: 'x'.repeat(8192) };
    expect((await sendGitHub(serve.url, 'pull_request', big)).status).toBe(413);
    expect((await sendGitHub(serve.url, 'pull_request', null, { raw: '{not json' })).status).toBe(400);
    const noHead = pullRequestPayload({ action: 'opened', head: 'not-a-sha' });
    expect((await sendGitHub(serve.url, 'pull_request', noHead)).status).toBe(400);
    expect((await sendGitHub(serve.url, 'ping', { zen: 'Keep it logically awesome.' })).status).toBe(200);
    expect((await sendGitHub(serve.url, 'issues', { action: 'opened' })).status).toBe(200);
    const labeled = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({ action: 'labeled', head: r.head }),
    );
    expect(labeled).toMatchObject({ status: 200, body: { ignored: 'pull_request/labeled' } });
    const elsewhere = pullRequestPayload({ action: 'opened', head: r.head, repository: 'acme/other' });
    expect((await sendGitHub(serve.url, 'pull_request', elsewhere)).body).toMatchObject({
      ignored: 'not the served repository',
    });
    expect(await store.deliveries.listDeliveries(10)).toEqual([]);
  });
});

describe('exactly one run per revision', () => {
  it('the same delivery sent 5 times at once, then redelivered after admission, admits one run', async () => {
    const { serve, store, r } = await start();
    const id = randomUUID();
    const payload = pullRequestPayload({ action: 'opened', head: r.head });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => sendGitHub(serve.url, 'pull_request', payload, { id })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 202]);
    const [d] = await settled(store);
    expect(d).toMatchObject({ deliveryId: id, state: 'admitted', pr: 7, head: r.head });
    const again = await sendGitHub(serve.url, 'pull_request', payload, { id });
    expect(again).toMatchObject({ status: 200, body: { duplicateOf: id, state: 'admitted' } });
    const runs = await store.listRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: d?.runId, status: 'queued', head: r.head });
    expect(runs[0]?.snapshot.headRef).toBe('refs/revloop/pulls/github/7');
    expect(await store.deliveries.triggerOf(runs[0]?.id ?? '')).toMatchObject({
      forge: 'github',
      repository: 'acme/widgets',
      pr: 7,
      deliveryId: id,
    });
  });

  it('two GitLab hooks for one push (two ids, two bodies) admit one run; an update without oldrev admits nothing', async () => {
    const { serve, store, r } = await start({ forge: 'gitlab' });
    const push = (hookId: number) =>
      sendGitLab(serve.url, mergeRequestPayload({ action: 'update', head: r.head, oldrev: r.base, hookId }));
    const [a, c] = await Promise.all([push(1), push(2)]);
    expect([a.status, c.status]).toEqual([202, 202]);
    const noPush = await sendGitLab(serve.url, mergeRequestPayload({ action: 'update', head: r.head }));
    expect(noPush).toMatchObject({ status: 200, body: { ignored: 'merge_request/update without a push' } });
    const all = await settled(store);
    expect(all.map((d) => d.state)).toEqual(['admitted', 'admitted']);
    expect(all[0]?.runId).toBe(all[1]?.runId);
    const runs = await store.listRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]?.snapshot.headRef).toBe('refs/revloop/pulls/gitlab/7');
    expect(runs[0]?.snapshot.change).toBe('merge_requests/7');
    // A wrong token is 401, a missing one too.
    expect(
      (await sendGitLab(serve.url, mergeRequestPayload({ action: 'open', head: r.head }), { token: 'nope' }))
        .status,
    ).toBe(401);
    expect(
      (await sendGitLab(serve.url, mergeRequestPayload({ action: 'open', head: r.head }), { token: null }))
        .status,
    ).toBe(401);
  });

  it('a newer head is admitted as a new run, and moves the ref the older run is frozen on', async () => {
    const { serve, store, r, push, clone } = await start();
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    const [first] = await settled(store);
    const newer = push(7, 'src/extra.js');
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'synchronize', head: newer }));
    const all = await settled(store);
    const runs = await store.listRuns();
    expect(runs.map((x) => x.head).sort()).toEqual([r.head, newer].sort());
    expect(new Set(all.map((d) => d.runId)).size).toBe(2);
    // The older run's frozen ref now names the newer head: its next freeze check supersedes it.
    const { execFileSync } = await import('node:child_process');
    const now = execFileSync('git', ['-C', clone, 'rev-parse', 'refs/revloop/pulls/github/7'], {
      encoding: 'utf8',
    });
    expect(now.trim()).toBe(newer);
    expect((await store.getRun(first?.runId ?? ''))?.snapshot.headRef).toBe('refs/revloop/pulls/github/7');
  });

  it('a late delivery of an older head admits the live head, never the old one', async () => {
    const { serve, store, r, push } = await start();
    const newer = push(7, 'src/extra.js');
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    await settled(store);
    expect((await store.listRuns()).map((x) => x.head)).toEqual([newer]);
  });

  it('closed cancels the queued run of the pull request', async () => {
    const { serve, store, r } = await start();
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    const [opened] = await settled(store);
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'closed', head: r.head }));
    const all = await settled(store);
    expect(all.find((d) => d.intent === 'close')).toMatchObject({
      state: 'cancelled',
      detail: '1 queued run(s) cancelled',
    });
    expect(await store.getRun(opened?.runId ?? '')).toMatchObject({
      status: 'aborted',
      reason: 'superseded',
      detail: 'the pull request was closed (pull_request/closed)',
    });
  });

  it('skips drafts until ready for review (or when told to review them)', async () => {
    const { serve, store, r } = await start();
    const draft = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({ action: 'opened', head: r.head, draft: true }),
    );
    expect(draft).toMatchObject({ status: 200, body: { ignored: 'draft pull request' } });
    expect(await store.deliveries.listDeliveries(10)).toEqual([]);
    const ready = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({ action: 'ready_for_review', head: r.head }),
    );
    expect(ready.status).toBe(202);
    await settled(store);
    expect(await store.listRuns()).toHaveLength(1);
    await b?.close();
    b = null;
    await db.truncate();
    const withDrafts = await start({ policy: { drafts: true } });
    const d2 = await sendGitHub(
      withDrafts.serve.url,
      'pull_request',
      pullRequestPayload({ action: 'opened', head: withDrafts.r.head, draft: true }),
    );
    expect(d2.status).toBe(202);
  });

  it('never lets a bot trigger a run: a Bot sender, or revloop’s own configured login', async () => {
    const { serve, store, r } = await start();
    const app = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({
        action: 'synchronize',
        head: r.head,
        sender: { login: 'dependabot[bot]', type: 'Bot' },
      }),
    );
    const own = await sendGitHub(
      serve.url,
      'pull_request',
      pullRequestPayload({
        action: 'synchronize',
        head: r.head,
        sender: { login: 'revloop-bot', type: 'User' },
      }),
    );
    expect([app.status, own.status]).toEqual([200, 200]);
    expect(app.body.ignored).toBe('sender dependabot[bot] is a bot');
    expect(await store.deliveries.listDeliveries(10)).toEqual([]);
    expect(await store.listRuns()).toEqual([]);
  });
});

describe('2xx only after the delivery row is committed', () => {
  it('answers 503 while the ledger is away, records nothing, and the redelivery is admitted once it is back', async () => {
    const proxy = await ledgerProxy(db.url);
    try {
      const { serve, store, r } = await start({ storeUrl: proxy.url });
      const id = randomUUID();
      const payload = pullRequestPayload({ action: 'opened', head: r.head });
      await proxy.cut();
      const away = await sendGitHub(serve.url, 'pull_request', payload, { id });
      expect(away).toMatchObject({ status: 503, body: { error: 'the ledger is unavailable' } });
      await proxy.mend();
      // Nothing was half-recorded: the forge's redelivery is the first the ledger hears of it.
      expect(await store.deliveries.getDelivery('github', id)).toBeNull();
      const back = await sendGitHub(serve.url, 'pull_request', payload, { id });
      expect(back.status).toBe(202);
      const [d] = await settled(store);
      expect(d).toMatchObject({ deliveryId: id, state: 'admitted' });
      expect(await store.listRuns()).toHaveLength(1);
    } finally {
      await b?.close();
      b = null;
      await proxy.close();
    }
  });
});

describe('comments', () => {
  it('hands a verified pull request comment to the injected handler, never a bot’s', async () => {
    const seen: unknown[] = [];
    const { serve } = await start({ onComment: async (e) => void seen.push(e) });
    const comment = (login: string, type: 'User' | 'Bot') => ({
      action: 'created',
      issue: { number: 7, pull_request: { url: 'x' } },
      comment: { id: 99, body: '/revloop review', user: { login, type } },
      repository: { full_name: 'acme/widgets' },
      sender: { login, type },
    });
    expect((await sendGitHub(serve.url, 'issue_comment', comment('alice', 'User'))).status).toBe(200);
    expect((await sendGitHub(serve.url, 'issue_comment', comment('revloop[bot]', 'Bot'))).status).toBe(200);
    expect(
      (await sendGitHub(serve.url, 'issue_comment', comment('alice', 'User'), { secret: 'x' })).status,
    ).toBe(401);
    expect(seen).toEqual([
      {
        forge: 'github',
        repo: 'acme/widgets',
        pr: 7,
        commentId: 99,
        author: 'alice',
        body: '/revloop review',
      },
    ]);
  });

  it('hands a GitLab merge request note to the handler, never a bot user’s', async () => {
    const seen: unknown[] = [];
    const { serve } = await start({ forge: 'gitlab', onComment: async (e) => void seen.push(e) });
    const note = (username: string) => ({
      object_kind: 'note',
      user: { id: 3, username },
      project: { id: 42, path_with_namespace: 'acme/widgets' },
      object_attributes: { id: 501, note: '/revloop pause', noteable_type: 'MergeRequest' },
      merge_request: { iid: 7 },
    });
    expect((await sendGitLab(serve.url, note('bob'), { event: 'Note Hook' })).status).toBe(200);
    expect((await sendGitLab(serve.url, note('project_42_bot_0a1b'), { event: 'Note Hook' })).status).toBe(
      200,
    );
    expect(seen).toEqual([
      { forge: 'gitlab', repo: 'acme/widgets', pr: 7, commentId: 501, author: 'bob', body: '/revloop pause' },
    ]);
  });

  it('answers 503 when the handler fails, so the forge delivers the comment again', async () => {
    const { serve } = await start({
      onComment: async () => {
        throw new Error('handler down');
      },
    });
    const res = await sendGitHub(serve.url, 'issue_comment', {
      action: 'created',
      issue: { number: 7, pull_request: { url: 'x' } },
      comment: { id: 5, body: '/revloop review', user: { login: 'alice', type: 'User' } },
      repository: { full_name: 'acme/widgets' },
      sender: { login: 'alice', type: 'User' },
    });
    expect(res).toMatchObject({ status: 503, body: { error: 'the delivery could not be handled' } });
  });
});

describe('GitHub’s form encoding', () => {
  it('reads `payload=` bodies, signed on the encoded bytes', async () => {
    const { serve, store, r } = await start();
    const raw = new URLSearchParams({
      payload: JSON.stringify(pullRequestPayload({ action: 'opened', head: r.head })),
    }).toString();
    const res = await sendGitHub(serve.url, 'pull_request', null, {
      raw,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(202);
    await settled(store);
    expect(await store.listRuns()).toHaveLength(1);
  });
});

describe('/revloop pause and /revloop review, as the service acts on them', () => {
  it('a paused pull request is not reviewed (the forge is asked, never the event); resumed, it is', async () => {
    let paused = true;
    const asked: number[] = [];
    const { serve, store, r } = await start({
      isPaused: async (pr) => {
        asked.push(pr);
        return paused;
      },
    });
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    const [d] = await settled(store);
    expect(d).toMatchObject({ state: 'ignored', runId: null });
    expect(d?.detail).toContain('paused');
    expect(await store.listRuns()).toEqual([]);
    paused = false;
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'synchronize', head: r.head }));
    const all = await settled(store);
    expect(all.filter((x) => x.state === 'admitted')).toHaveLength(1);
    expect(await store.listRuns()).toHaveLength(1);
    expect(asked).toEqual([7, 7]);
  });

  it('a pause check the forge cannot answer is tried again, never taken for "not paused" or "paused"', async () => {
    let calls = 0;
    const { serve, store, r } = await start({
      isPaused: async () => {
        if (++calls < 3) throw new Error('502 from the forge');
        return false;
      },
    });
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    const [d] = await settled(store);
    expect(d).toMatchObject({ state: 'admitted' });
    expect(calls).toBe(3);
  });

  it('/revloop review admits the live head again with who asked and why; before any review there is nothing to rerun', async () => {
    const { admitRerun } = await import('../../src/serve/admitter.js');
    const { serve, store, r, deps } = await start();
    const served = {
      forge: 'github' as const,
      repository: 'acme/widgets',
      repoRoot: b?.clone ?? '',
      remote: 'origin',
    };
    const ask = { by: 'github:grace', reason: 'the flaky reviewer timed out' };
    expect(await admitRerun(deps, served, 'github', 7, ask)).toEqual({
      kind: 'deferred',
      detail: 'no review of this pull request yet',
    });
    await sendGitHub(serve.url, 'pull_request', pullRequestPayload({ action: 'opened', head: r.head }));
    const [d] = await settled(store);
    const again = await admitRerun(deps, served, 'github', 7, ask);
    // The first run is still queued (no worker here): a rerun of it answers with it.
    expect(again).toEqual({ kind: 'existing', runId: d?.runId });
    await store.finishRun(
      (await store.acquireLease(d?.runId ?? '', { id: 'h:1:x', host: 'h', pid: 1 }, 60_000))!,
      { status: 'completed', outcome: 'findings', stopReason: 'clear', reason: null, detail: null },
    );
    const third = await admitRerun(deps, served, 'github', 7, ask);
    expect(third.kind).toBe('admitted');
    const run = third.kind === 'admitted' ? await store.getRun(third.runId) : null;
    expect(run).toMatchObject({ head: r.head, rerun: { ordinal: 1, ...ask } });
  });
});
