/**
 * A new push pays only for what changed: a chunked change reviewed by a
 * subprocess reviewer that declares `reuse: prompt`, then a one-line push to
 * one file. The second run calls the reviewer only for the chunk that file is
 * in (and at most one neighbour), reuses every other verdict at no cost with
 * the call it came from, ends as a full re-review in a fresh ledger does, and
 * replays identical. Real repository, real subprocess reviewer, real SQLite.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerdictRow } from '../../src/core/stage-results.js';
import { runView } from '../../src/forge/view.js';
import { toMarkdown } from '../../src/report/markdown.js';
import { type FaultServer, faults, startFaultServer } from '../helpers/fault-server.js';
import {
  baseConfig,
  ensureBuilt,
  inProcess,
  makeReviewRepo,
  paid,
  reposRemovedAfterAll,
  review,
  runCli,
  testEnv,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 300_000);
let server: FaultServer;
const ENV = testEnv({ REVLOOP_REUSE_KEY: 'sk-reuse-not-a-secret' });
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server?.close();
});

/** Thirty files of about 1 KB of diff each; `edit` changes one line of one of them. */
const files = (edit?: number) =>
  Object.fromEntries(
    Array.from({ length: 30 }, (_, f) => [
      `src/mod${f}/index.js`,
      Array.from(
        { length: 16 },
        (_, i) => `export const v${f}_${i} = '${f === edit && i === 7 ? 'changed' : 'x'.repeat(32)}';`,
      ).join('\n') + '\n',
    ]),
  );

const callsOf = async (p: Awaited<ReturnType<typeof inProcess>>, runId: string) =>
  (await p.store.listAttempts(runId)).length;

describe('reuse across pushes (a reviewer that declares its input is the prompt)', () => {
  it('a one-line push re-asks at most two chunks; the rest are reused at $0, naming their run and revision', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          reviewers: [{ name: 'correctness', ...a, reuse: 'prompt' }],
          review: { chunkBytes: 4_000 },
        }),
      change: files(),
    });
    repos.push(r);
    r.plan({ reviewer: [paid(0.01)] });
    const p = await inProcess(r.dir);
    try {
      const first = await review(p, r.dir);
      expect(first.run).toMatchObject({ status: 'completed', outcome: 'clear' });
      const chunks = await callsOf(p, first.run.id);
      expect(chunks).toBeGreaterThanOrEqual(8);
      const firstCost = (await p.store.getRun(first.run.id))?.costUsd ?? 0;
      expect(firstCost).toBeCloseTo(0.01 * chunks, 6);

      for (const [path, text] of Object.entries(files(12))) r.repo.write(path, text);
      const pushed = r.repo.commit('one line');
      const second = await review(p, r.dir);
      expect(second.run.head).toBe(pushed);
      const asked = await callsOf(p, second.run.id);
      expect(asked).toBeGreaterThanOrEqual(1);
      expect(asked).toBeLessThanOrEqual(2);
      const verdicts = await p.store.listVerdicts(second.run.id);
      const reused = verdicts.filter((v) => v.reusedFrom);
      expect(verdicts.length).toBe(reused.length + asked);
      for (const v of reused) {
        expect(v.costUsd).toBe(0);
        expect(v.reusedFrom).toMatchObject({ runId: first.run.id, revision: first.run.head });
      }
      expect((await p.store.getRun(second.run.id))?.costUsd).toBeCloseTo(0.01 * asked, 6);

      // The record, the job summary and the PR review say how many were reused and from where.
      const line = `${reused.length} of ${verdicts.length} reviewer verdicts reused from run ${first.run.id} at revision ${first.run.head.slice(0, 7)}`;
      const envelope = JSON.parse(readFileSync(second.run.recordPath ?? '', 'utf8'));
      const predicate = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')).predicate;
      expect(predicate.reused.roles).toEqual([
        { role: 'reviewer', verdicts: verdicts.length, reused: reused.length },
      ]);
      expect(predicate.reused.from).toHaveLength(reused.length);
      expect(toMarkdown(second.report)).toContain(line);
      expect(runView(second.report).reused).toContain(line);
      // review --json names each reused verdict's source.
      const json = await runCli(['status', second.run.id, '--json'], { cwd: r.dir });
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.stringify(json.json)).toContain(`"reusedFrom":{"callKey":`);
      // verify accepts it, unless told to refuse reused verdicts: then one line and its own exit code.
      const ok = await runCli(['verify', second.run.recordPath ?? ''], { cwd: r.dir });
      expect(ok.code, ok.stderr).toBe(0);
      const strict = await runCli(['verify', second.run.recordPath ?? '', '--no-reuse'], { cwd: r.dir });
      expect(strict.code).toBe(16);
      expect(strict.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^revloop verify: refused: reused_verdicts: run .*--no-reuse was given$/),
      ]);
      expect(strict.stderr).toContain(line);
      const firstOk = await runCli(['verify', first.run.recordPath ?? '', '--no-reuse', '--json'], {
        cwd: r.dir,
      });
      // The first run's record reused nothing: --no-reuse has nothing to refuse (it covers an older head).
      expect(firstOk.json?.code).not.toBe('reused_verdicts');

      // The same outcome, and the same verdict on every chunk, as a full re-review in a ledger of its own.
      const q = await inProcess(r.dir, { url: 'sqlite:.revloop/fresh.db' });
      try {
        const full = await review(q, r.dir);
        expect(await callsOf(q, full.run.id)).toBe(verdicts.length);
        expect(full.run).toMatchObject({ status: 'completed', outcome: second.run.outcome });
        const replies = (vs: VerdictRow[]) => vs.map((v) => JSON.stringify([v.promptDigest, v.reply])).sort();
        expect(replies(verdicts)).toEqual(replies(await q.store.listVerdicts(full.run.id)));
      } finally {
        await q.close();
      }
    } finally {
      await p.close();
    }
  }, 240_000);

  it('reuse on the fixer is refused in one line naming the key (exit 2), and nothing is admitted', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { fixer: { ...a, reuse: 'prompt' } }),
    });
    repos.push(r);
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual([
      "revloop: revloop.config.yaml: fixer.reuse: a fixer's calls are never reused (it edits the checkout)",
    ]);
    expect(r.counts()).toEqual({});
  }, 60_000);

  it('an API reviewer reuses by review.reuse: a push that leaves its prompt as it was asks nothing; a --rerun asks again', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          reviewers: [
            {
              name: 'std',
              adapter: 'openai',
              baseURL: server.openaiBaseURL,
              model: 'reuse-model',
              apiKeyEnv: 'REVLOOP_REUSE_KEY',
            },
          ],
          review: { reuse: 'prompt' },
          ignore: ['gen/**'],
        }),
    });
    repos.push(r);
    const p = await inProcess(r.dir, { env: ENV });
    try {
      const asked = server.requests.length;
      server.push(faults.json({ verdict: 'pass', findings: [] }, 'reuse-model'));
      const first = await review(p, r.dir);
      expect(first.run).toMatchObject({ status: 'completed', outcome: 'clear' });
      expect(server.requests.length).toBe(asked + 1);
      expect(first.run.snapshot.reviewers[0]?.reuse).toBe('prompt');
      // A push to an ignored path: a new revision whose prompt is byte for byte the first one's.
      r.repo.write('gen/out.js', 'generated\n');
      r.repo.commit('regenerate');
      const second = await review(p, r.dir);
      expect(second.run.head).not.toBe(first.run.head);
      expect(server.requests.length).toBe(asked + 1);
      const [reused] = await p.store.listVerdicts(second.run.id);
      expect(reused).toMatchObject({ costUsd: 0, modelId: 'reuse-model' });
      expect(reused?.reusedFrom).toMatchObject({ runId: first.run.id, revision: first.run.head });
      // Reviewing the same revision again on purpose asks the reviewer again.
      server.push(faults.json({ verdict: 'pass', findings: [] }, 'reuse-model'));
      const again = await review(p, r.dir, { rerun: { by: 'grace', reason: 'the endpoint was flaky' } });
      expect(again.run.id).not.toBe(second.run.id);
      expect(server.requests.length).toBe(asked + 2);
      const [fresh] = await p.store.listVerdicts(again.run.id);
      expect(fresh?.reusedFrom).toBeUndefined();
    } finally {
      await p.close();
    }
  }, 120_000);
});
