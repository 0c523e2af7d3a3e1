/**
 * Commands from a pull request's comments against real parts: a real run
 * in a real ledger, SQLite and PostgreSQL (a real git repository, a subprocess reviewer, a
 * protected path whose edit waits for a named person), and a loopback
 * GitHub that validates every request against @octokit/openapi. The
 * settlement a writer gives from the pull request is recorded with their
 * forge identity and the next review's decision uses it; nobody else's
 * command changes anything, and they are answered once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FindingRow, RunRow } from '../../src/core/ledger.js';
import { githubCommandForge } from '../../src/forge/github/commands.js';
import { admit } from '../../src/loop/admission.js';
import type { RerunRequest } from '../../src/ports/store.js';
import { type CommentDeps, type CommentEvent, handleComment } from '../../src/serve/comment-commands.js';
import { createTestDatabase, type TestDatabase } from '../helpers/pg.js';
import {
  baseConfig,
  type InProcess,
  inProcess,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  review,
} from '../loop/helpers.js';
import { LoopbackGitHubComments } from './loopback-github-comments.js';

const RESPONSE = 'export function send(res, body) {\n  res.end(body);\n}\n';
let seq = 1;

const comment = (author: string, body: string): CommentEvent => ({
  forge: 'github',
  repo: 'acme/widgets',
  pr: 7,
  commentId: String(seq++),
  author,
  body,
});

// The service runs on PostgreSQL; the settle operation is the same on SQLite, where `revloop settle` runs.
describe.each(['sqlite', 'postgres'] as const)('on %s', (ledger) => {
  let gh: LoopbackGitHubComments;
  let r: ReviewRepo;
  let p: InProcess;
  let first: RunRow;
  let blocker: FindingRow;
  const reruns: RerunRequest[] = [];
  let db: TestDatabase | null = null;

  beforeAll(async () => {
    gh = await new LoopbackGitHubComments().start();
    gh.permissions.set('grace', 'write');
    gh.permissions.set('linus', 'admin');
    gh.permissions.set('mallory', 'read');
    r = await makeReviewRepo({
      config: (a) => baseConfig(a, { protect: ['lib/response.js'] }),
      files: { 'lib/response.js': RESPONSE },
      change: { 'lib/response.js': RESPONSE.replace('res.end(body)', 'res.end(String(body))') },
    });
    r.plan({ reviewer: [{ reply: pass }] });
    db = ledger === 'postgres' ? await createTestDatabase() : null;
    p = await inProcess(r.dir, db ? { url: db.url } : {});
    const run = await review(p, r.dir);
    expect(run.run.outcome).toBe('findings');
    first = run.run;
    const found = (await p.store.listFindings(first.id)).filter((f) => f.reviewer === 'revloop');
    expect(found).toHaveLength(1);
    blocker = found[0] as FindingRow;
    gh.heads.set(7, r.head);
  }, 120_000);

  afterAll(async () => {
    await p?.close();
    await r?.cleanup();
    await db?.drop();
    await gh.stop();
    expect(gh.violations).toEqual([]);
  });

  beforeEach(() => {
    gh.heads.set(7, r.head);
  });

  function deps(over: Partial<CommentDeps> = {}): CommentDeps {
    return {
      store: p.store,
      forge: () => githubCommandForge({ apiUrl: gh.url, token: async () => gh.token, paceWrites: false }),
      repoIdentity: () => first.repo,
      async requestRerun(_event, rerun) {
        reruns.push(rerun);
        const a = await admit(p.deps, { repoDir: r.dir, headRef: 'topic', configFrom: 'base', rerun });
        if (a.result.kind === 'deferred') return { kind: 'deferred', detail: a.result.detail };
        return { kind: a.result.kind === 'created' ? 'admitted' : 'existing', runId: a.result.run.id };
      },
      now: () => Date.UTC(2026, 11, 7),
      ...over,
    };
  }

  /** What the forge was asked, from `from` on. */
  const since = (from: number) => gh.requests.slice(from);

  it("has the shape of the router's onComment", () => {
    const onComment: (event: {
      forge: 'github' | 'gitlab';
      repo: string;
      pr: number;
      commentId: string;
      author: string;
      body: string;
    }) => Promise<void> = (event) => handleComment(deps(), event).then(() => {});
    expect(typeof onComment).toBe('function');
  });

  it.each([
    ['a pull request number that is no number', { pr: Number.NaN }],
    ['a negative one', { pr: -7 }],
    ['a comment id that could close a marker', { commentId: '1 --><script>' }],
  ])('%s: ignored, no API call', async (_name, over) => {
    const from = gh.requests.length;
    const out = await handleComment(deps(), { ...comment('grace', '/revloop pause'), ...over });
    expect(out).toEqual({ result: 'ignored', why: 'bad_event' });
    expect(since(from)).toEqual([]);
  });

  describe('comments that are not commands, and bots', () => {
    const silent: [string, string, string][] = [
      ['prose', 'grace', 'looks good to me'],
      ['a quoted command', 'grace', `> /revloop settle ${'a'.repeat(16)} overturned fine`],
      ['a command in a code block', 'grace', '```\n/revloop pause\n```'],
      ['a look-alike', 'grace', '/revIoop pause'],
      ['a huge body', 'grace', `/revloop pause\n${'x'.repeat(70_000)}`],
      ['a bot', 'revloop-app[bot]', '/revloop pause'],
      ['a configured bot', 'ci-robot', '/revloop pause'],
      ['an author name that is no login', 'grace\n<!--', '/revloop pause'],
    ];
    it.each(silent)('%s: ignored, no API call', async (_name, author, body) => {
      const from = gh.requests.length;
      const out = await handleComment(deps({ bots: ['ci-robot'] }), comment(author, body));
      expect(out.result).toBe('ignored');
      expect(since(from)).toEqual([]);
    });
  });

  describe('a stranger', () => {
    it('is answered once per pull request, politely, and nothing is done', async () => {
      const from = gh.comments.length;
      const a = await handleComment(
        deps(),
        comment('mallory', `/revloop settle ${blocker.id} overturned trust me`),
      );
      expect(a).toMatchObject({ result: 'refused', why: 'no_write_access' });
      const b = await handleComment(deps(), comment('mallory', '/revloop pause'));
      expect(b).toMatchObject({ result: 'refused', why: 'no_write_access' });
      const c = await handleComment(deps(), comment('nobody-here', '/revloop pause'));
      expect(c).toMatchObject({ result: 'refused', why: 'no_write_access' });
      const answers = gh.comments.slice(from).map((x) => x.body);
      expect(answers).toEqual([
        expect.stringMatching(
          /^<!-- revloop refused=mallory -->\n@mallory thanks, but revloop takes commands only from people with write access/,
        ),
        expect.stringMatching(/^<!-- revloop refused=nobody-here -->\n@nobody-here/),
      ]);
      expect((await p.store.getFinding(blocker.id))?.settlement).toBeNull();
      expect(gh.labels.get(7)?.size ?? 0).toBe(0);
    });
  });

  describe('a writer', () => {
    it('a malformed command gets one short usage answer, even when delivered twice', async () => {
      const ev = comment('grace', '/revloop pause\n/revloop resume');
      const from = gh.comments.length;
      expect(await handleComment(deps(), ev)).toMatchObject({ result: 'refused', why: 'malformed' });
      expect(await handleComment(deps(), ev)).toMatchObject({ result: 'refused', why: 'malformed' });
      const answers = gh.comments.slice(from);
      expect(answers).toHaveLength(1);
      expect(answers[0]?.body).toMatch(
        /2 commands in one comment: nothing was done\. revloop reads one command per comment/,
      );
    });

    it("another repository's finding, and an unknown one, are refused the same way", async () => {
      const other = await handleComment(
        deps({ repoIdentity: () => 'https://github.com/acme/elsewhere' }),
        comment('grace', `/revloop settle ${blocker.id} overturned fine`),
      );
      expect(other).toMatchObject({ result: 'refused', why: 'unknown_finding' });
      const unknown = await handleComment(
        deps(),
        comment('grace', '/revloop settle 00000000dead upheld fine'),
      );
      expect(unknown).toMatchObject({ result: 'refused', why: 'unknown_finding' });
      expect((await p.store.getFinding(blocker.id))?.settlement).toBeNull();
    });

    it('a finding of a run the pull request has moved past is refused with the reason', async () => {
      gh.heads.set(7, 'f'.repeat(40));
      const out = await handleComment(
        deps(),
        comment('grace', `/revloop settle ${blocker.id} overturned fine`),
      );
      expect(out).toMatchObject({ result: 'refused', why: 'superseded' });
      if (out.result === 'refused')
        expect(out.detail).toContain(
          `reviewed ${r.head.slice(0, 12)}; the pull request's head is now ffffffffffff`,
        );
      expect((await p.store.getFinding(blocker.id))?.settlement).toBeNull();
    });

    it('settles with the forge identity, bound to the judged content, and the next review uses it', async () => {
      const ev = comment(
        'grace',
        `Checked it.\n/revloop settle ${blocker.id.slice(0, 10)} overturned a harmless cast`,
      );
      const out = await handleComment(deps(), ev);
      expect(out).toMatchObject({ result: 'done', command: 'settle' });
      const settled = await p.store.getFinding(blocker.id);
      expect(settled?.settlement).toMatchObject({
        by: 'github:grace',
        decision: 'overturned',
        note: 'a harmless cast',
      });
      expect(gh.reactions).toContainEqual({ commentId: Number(ev.commentId), content: '+1' });
      // The event delivered again: the same reaction, no second settlement, no comment.
      const comments = gh.comments.length;
      expect(await handleComment(deps(), ev)).toMatchObject({ result: 'done' });
      expect(gh.comments.length).toBe(comments);
      expect(gh.reactions.filter((x) => x.commentId === Number(ev.commentId))).toHaveLength(1);
      // Someone else deciding otherwise is told who decided.
      const late = await handleComment(deps(), comment('linus', `/revloop settle ${blocker.id} upheld no`));
      expect(late).toMatchObject({ result: 'refused', why: 'already_settled' });
      expect((await p.store.getFinding(blocker.id))?.settlement?.by).toBe('github:grace');

      const next = await review(p, r.dir);
      expect(next.run.id).not.toBe(first.id);
      expect(next.run.outcome).toBe('clear');
    }, 120_000);

    it('a re-review the limits defer is answered with why, and nothing is acknowledged', async () => {
      const ev = comment('grace', '/revloop review');
      const out = await handleComment(
        deps({
          requestRerun: async () => ({ kind: 'deferred', detail: '2 runs of acme/widgets under way' }),
        }),
        ev,
      );
      expect(out).toMatchObject({ result: 'refused', why: 'deferred' });
      expect(gh.comments.at(-1)?.body).toBe(
        `<!-- revloop answer=${ev.commentId} -->\nthe re-review waits: 2 runs of acme/widgets under way. Ask again once it has room.`,
      );
      expect(gh.reactions.some((x) => x.commentId === Number(ev.commentId))).toBe(false);
    });

    it('pause labels the pull request, a re-review waits for resume, then is admitted as review --rerun is', async () => {
      expect(await handleComment(deps(), comment('grace', '/revloop pause'))).toMatchObject({
        result: 'done',
      });
      expect([...(gh.labels.get(7) ?? [])]).toEqual(['revloop-paused']);
      const waiting = await handleComment(deps(), comment('grace', '/revloop review please'));
      expect(waiting).toMatchObject({ result: 'refused', why: 'paused' });
      expect(reruns).toEqual([]);
      expect(await handleComment(deps(), comment('linus', '/revloop resume'))).toMatchObject({
        result: 'done',
      });
      expect([...(gh.labels.get(7) ?? [])]).toEqual([]);
      // Resuming twice is still resumed.
      expect(await handleComment(deps(), comment('linus', '/revloop resume'))).toMatchObject({
        result: 'done',
      });
      const again = await handleComment(deps(), comment('grace', '/revloop review the reviewer timed out'));
      expect(again).toMatchObject({ result: 'done', command: 'review' });
      expect(reruns).toEqual([{ by: 'github:grace', reason: 'the reviewer timed out' }]);
      const queued = await p.store.listRuns({ status: ['queued'] });
      expect(queued).toHaveLength(1);
      expect(queued[0]?.rerun).toMatchObject({ by: 'github:grace', reason: 'the reviewer timed out' });
    });
  });
});
