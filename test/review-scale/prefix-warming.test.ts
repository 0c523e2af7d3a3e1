/**
 * P10 with concurrent reviewers: of the calls that share a prompt prefix and
 * go to an endpoint that caches it, the first starts alone and the others
 * when its first reply event arrives, when it ends, or after a bounded wait.
 * The unit part drives the gates by hand (no verdict depends on timing); the
 * end-to-end part runs three anthropic reviewers side by side against the
 * loopback endpoint whose cache, like Anthropic's, holds a prefix only once
 * the request writing it has been read, and checks that each round writes its
 * prefix once and records exactly what a one-at-a-time run records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the bench's loopback endpoint is plain JavaScript
import { startCacheServer } from '../../bench/anthropic-cache-server.mjs';
import { createFixtureRepo } from '../../src/git/fixture-repo.js';
import { prefixWarming, WARM_WAIT_MS } from '../../src/loop/calls/prefix-warming.js';
import { composeDeps } from '../../src/loop/compose.js';
import { reviewRevision } from '../../src/loop/operations.js';
import { loadRunReport } from '../../src/loop/outputs/run-report-loader.js';
import { signingKeyPath } from '../../src/loop/outputs/write-record.js';
import { openStore } from '../../src/store/index.js';
import { expectReplayIdentical } from '../loop/helpers.js';

const settledNow = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
};

/** A clock whose sleeps end only when the test says so. */
function handClock() {
  const sleeps: { ms: number; end: () => void; signal?: AbortSignal | undefined }[] = [];
  return {
    sleeps,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((end) => {
        sleeps.push({ ms, end, signal });
        signal?.addEventListener('abort', () => end(), { once: true });
      }),
  };
}

describe('prefixWarming', () => {
  const calls = [
    { group: 0, caches: true },
    { group: 0, caches: false },
    { group: 0, caches: true },
    { group: 1, caches: true },
    { group: 1, caches: true },
  ];

  it('holds the later callers of a cached prefix until the first one has its first reply event', async () => {
    const clock = handClock();
    const w = prefixWarming(calls, 3, clock.sleep);
    expect(await settledNow(w.ready(0))).toBe(true);
    expect(await settledNow(w.ready(1)), 'an agent that caches nothing never waits').toBe(true);
    const waiting = w.ready(2);
    expect(await settledNow(waiting)).toBe(false);
    const first = w.starting(0);
    expect(clock.sleeps.map((s) => s.ms)).toEqual([WARM_WAIT_MS]);
    expect(await settledNow(waiting)).toBe(false);
    first.onFirstBytes?.();
    expect(await settledNow(waiting)).toBe(true);
    expect(clock.sleeps[0]?.signal?.aborted, 'the bounded wait is cancelled').toBe(true);
    // Another chunk is another prefix: its own first call warms it.
    expect(await settledNow(w.ready(4))).toBe(false);
    expect(await settledNow(w.ready(3))).toBe(true);
  });

  it('opens when the first call ends without a reply event, or when the bounded wait runs out', async () => {
    const clock = handClock();
    const w = prefixWarming(calls, 3, clock.sleep);
    const a = w.ready(2);
    w.starting(0).ended();
    expect(await settledNow(a)).toBe(true);
    const b = w.ready(4);
    w.starting(3);
    expect(await settledNow(b)).toBe(false);
    clock.sleeps[1]?.end();
    expect(await settledNow(b)).toBe(true);
  });

  it('changes nothing when calls run one at a time', async () => {
    const clock = handClock();
    const w = prefixWarming(calls, 1, clock.sleep);
    for (let i = 0; i < calls.length; i++) expect(await settledNow(w.ready(i))).toBe(true);
    expect(w.starting(0).onFirstBytes).toBeUndefined();
    expect(clock.sleeps).toEqual([]);
  });
});

describe('three anthropic reviewers side by side, one cached prefix per round', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const HELPERS = Array.from({ length: 150 }, (_, i) => `export const h${i} = (x) => x * ${i + 1};\n`).join(
    '',
  );
  const FINDING = {
    severity: 'MINOR',
    file: 'src/calc.js',
    line: 1,
    claim: 'h0 is not tested',
    failureScenario: null,
    violatedClause: null,
    missedBecause: null,
  };

  async function run(concurrency: number) {
    // A long prefill: a reviewer started beside the first would certainly pay to write the prefix.
    const server = await startCacheServer({
      caching: true,
      prefillMs: 400,
      generateMs: 50,
      reply: () => ({ verdict: 'findings', findings: [FINDING] }),
    });
    const dir = mkdtempSync(join(tmpdir(), 'revloop-warming-'));
    dirs.push(dir);
    const repo = await createFixtureRepo(dir);
    const reviewers = ['correctness', 'standards', 'security'].map(
      (n) => `  - { name: ${n}, adapter: anthropic, baseURL: "${server.url}", model: claude-test }`,
    );
    await repo.commit(
      {
        '.gitignore': '.revloop/\n',
        'REVIEW.md': '1. Every exported function is tested.\n',
        'revloop.config.yaml': [
          'criteria: REVIEW.md',
          'reviewers:',
          ...reviewers,
          `review: { concurrency: ${concurrency} }`,
          '',
        ].join('\n'),
        'src/calc.js': HELPERS,
      },
      'base',
    );
    await repo.branch('topic');
    await repo.commit({ 'src/calc.js': `${HELPERS}export const more = 1;\n` }, 'change');
    signingKeyPath(dir);
    const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
    try {
      const deps = composeDeps({
        store,
        repoRoot: dir,
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key' },
      });
      const res = await reviewRevision(deps, { repoDir: dir, headRef: 'topic', configFrom: 'base' });
      if (res.kind !== 'run') throw new Error('deferred');
      const report = await loadRunReport(store, res.run.id);
      if (!report) throw new Error('no report');
      // Invariant 6: the decisions recomputed from the recorded verdicts are the run's.
      await expectReplayIdentical(deps, report);
      return { tally: { ...server.tally }, report };
    } finally {
      await store.close();
      await server.close();
    }
  }

  it('writes the prefix once per round and records what a one-at-a-time run records', async () => {
    const side = await run(3);
    const serial = await run(1);
    expect(side.report.run).toMatchObject({ status: 'completed', outcome: 'clear' });
    expect(side.tally.calls).toBe(3);
    expect(side.tally.cacheRead, 'two of three calls read the prefix the first wrote').toBeGreaterThan(0);
    expect(side.tally.cacheWrite).toBe(serial.tally.cacheWrite);
    expect(side.tally.cacheRead).toBe(serial.tally.cacheRead);
    // The same prompts (call keys differ only by the run id they carry), and the round's
    // verdicts in configured order.
    const recorded = (r: typeof side) => {
      const review = r.report.stages.find((st) => st.stage === 'review')?.result as {
        verdicts: { reviewer: string; callKey: string }[];
      };
      const digest = new Map(r.report.verdicts.map((v) => [v.callKey, v.promptDigest]));
      return review.verdicts.map((v) => `${v.reviewer}:${digest.get(v.callKey)}`);
    };
    expect(recorded(side).map((x) => x.split(':')[0])).toEqual(['correctness', 'standards', 'security']);
    expect(recorded(side)).toEqual(recorded(serial));
  }, 60_000);
});
