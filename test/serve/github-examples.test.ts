/**
 * GitHub's own webhook payloads, not ours: every `pull_request` and
 * `issue_comment` example GitHub publishes (@octokit/webhooks-examples,
 * generated from its webhook schemas) goes through the service's reading of
 * events, and one signed example becomes one run through the real service on
 * PostgreSQL. A payload shape we only imagined would pass our own checks.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServePolicy } from '../../src/serve/deps.js';
import { classifyGitHub } from '../../src/serve/events.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import { type Bench, bench, sendGitHub, settled } from './harness.js';

type Json = Record<string, unknown>;
interface Examples {
  name: string;
  examples: Json[];
}
const require = createRequire(import.meta.url);
const all = require('@octokit/webhooks-examples/api.github.com/index.json') as Examples[];
const examplesOf = (name: string): Json[] => all.find((e) => e.name === name)?.examples ?? [];

const POLICY: ServePolicy = { drafts: false, botLogins: [], maxBodyBytes: 1 << 20 };
const REVIEW = ['opened', 'reopened', 'synchronize', 'ready_for_review'];
const obj = (v: unknown) => v as Json;

describe("GitHub's published pull_request examples", () => {
  const prs = examplesOf('pull_request');

  it('there are examples of every action the service acts on', () => {
    const actions = new Set(prs.map((e) => e.action));
    for (const a of [...REVIEW, 'closed']) expect(actions, a).toContain(a);
    expect(prs.length).toBeGreaterThan(20);
  });

  it.each(prs.map((e, i) => [`${i} ${String(e.action)}`, e] as const))(
    'example %s: read as GitHub meant it, never malformed',
    (_, body) => {
      const got = classifyGitHub('pull_request', body, POLICY);
      expect(got.kind).not.toBe('malformed');
      const pr = obj(body.pull_request);
      const bot = obj(body.sender).type === 'Bot';
      if (body.action === 'closed') {
        expect(got).toMatchObject({ kind: 'trigger', trigger: { intent: 'close', pr: pr.number } });
      } else if (REVIEW.includes(String(body.action)) && !bot && pr.draft !== true) {
        expect(got).toEqual({
          kind: 'trigger',
          trigger: {
            event: `pull_request/${String(body.action)}`,
            intent: 'review',
            repository: obj(body.repository).full_name,
            pr: pr.number,
            head: obj(pr.head).sha,
            baseBranch: obj(pr.base).ref,
            sender: obj(body.sender).login,
          },
        });
      } else {
        expect(got.kind).toBe('ignore');
      }
    },
  );

  it('a draft is reviewed only when drafts are asked for', () => {
    const draft = prs.find((e) => e.action === 'opened' && obj(e.pull_request).draft === true);
    const body = draft ?? {
      ...prs[0],
      action: 'opened',
      pull_request: { ...obj(prs[0]?.pull_request), draft: true },
    };
    expect(classifyGitHub('pull_request', body as Json, POLICY)).toEqual({
      kind: 'ignore',
      reason: 'draft pull request',
    });
    expect(classifyGitHub('pull_request', body as Json, { ...POLICY, drafts: true }).kind).toBe('trigger');
  });
});

describe("GitHub's published issue_comment examples", () => {
  const comments = examplesOf('issue_comment');

  it.each(comments.map((e, i) => [`${i} ${String(e.action)}`, e] as const))(
    'example %s: a new comment on a pull request is handed on; anything else ignored',
    (_, body) => {
      const got = classifyGitHub('issue_comment', body, POLICY);
      expect(got.kind).not.toBe('malformed');
      const issue = obj(body.issue);
      const comment = obj(body.comment);
      const byBot = obj(body.sender).type === 'Bot' || obj(comment.user).type === 'Bot';
      if (body.action === 'created' && issue.pull_request && !byBot)
        expect(got).toEqual({
          kind: 'comment',
          comment: {
            forge: 'github',
            repo: obj(body.repository).full_name,
            pr: issue.number,
            commentId: comment.id,
            author: obj(comment.user).login,
            body: comment.body,
          },
        });
      else expect(got.kind).toBe('ignore');
    },
  );
});

describe('a published example, signed as GitHub signs it, through the real service', () => {
  let db: TestDatabase;
  let b: Bench | null = null;
  beforeAll(async () => {
    db = await createTestDatabase('revloop_serve_examples');
  });
  afterAll(async () => {
    await b?.close();
    await db?.drop();
  });

  it('synchronize becomes one run of the pull request’s live head, however often it is sent', async () => {
    b = await bench({ storeUrl: db.url });
    const example = examplesOf('pull_request').find((e) => e.action === 'synchronize') as Json;
    // GitHub's example names its own repository and number: sent as it is, the service ignores it
    // (not the repository it serves); renamed to the served repository and its pull request 7, it acts.
    const foreign = await sendGitHub(b.serve.url, 'pull_request', example);
    expect(foreign.status).toBe(200);
    expect(await b.store.deliveries.listDeliveries(10)).toEqual([]);
    const body = {
      ...example,
      number: 7,
      repository: { ...obj(example.repository), full_name: 'acme/widgets' },
      // and its base is the served repository's main branch (GitHub's example's is `master`).
      pull_request: {
        ...obj(example.pull_request),
        number: 7,
        base: { ...obj(obj(example.pull_request).base), ref: 'main' },
      },
    };
    const answers = await Promise.all(
      [1, 2, 3].map(() => sendGitHub(b!.serve.url, 'pull_request', body, { id: 'same-delivery' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 202]);
    const [d] = await settled(b.store);
    expect(d, d?.detail ?? '').toMatchObject({ state: 'admitted', pr: 7 });
    const runs = await b.store.listRuns();
    expect(runs).toHaveLength(1);
    // The example's head is GitHub's; the run is of the live head the forge has now.
    expect(runs[0]?.snapshot.head).toBe(b.r.head);
  });
});
