/**
 * Issue 17, points 2-4, end to end: real repositories in temp dirs, real
 * subprocess reviewers, the CLI as a real process, the SQLite ledger. Every
 * run made in-process is replayed (helpers.review); CLI runs are replayed
 * with `revloop replay`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { callKey } from '../../src/core/keys.js';
import type { RunReport } from '../../src/core/run-report.js';
import type { ReviewResult } from '../../src/core/stage-results.js';
import { sha256 } from '../../src/io/hash.js';
import { reviewRevision } from '../../src/loop/operations.js';
import { buildStatement, loadSigner, signStatement, writeRecord } from '../../src/record/index.js';
import { toMarkdown } from '../../src/report/markdown.js';
import { renderRunSummary } from '../../src/report/terminal.js';
import { binaryBytes } from '../helpers/binary-bytes.js';
import { withMethod } from '../helpers/with-method.js';
import {
  baseConfig,
  ensureBuilt,
  findings,
  inProcess,
  makeReviewRepo,
  paid,
  pass,
  type ReviewRepo,
  ROOT,
  replayedReportIn,
  reposRemovedAfterAll,
  review,
  runCli,
} from '../loop/helpers.js';

const RENDEZVOUS = join(ROOT, 'test/fixtures/scale/rendezvous-reviewer.mjs');
const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 300_000);

const fast = { retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 50 } };

/** `lines` changed lines of about 60 bytes each: a file's diff of roughly lines × 60 bytes. */
const body = (tag: string, lines: number) =>
  Array.from({ length: lines }, (_, i) => `export const ${tag}${i} = '${'x'.repeat(32)}';`).join('\n') + '\n';

const reviewOf = (rep: RunReport, round = 1) =>
  rep.stages.find((s) => s.round === round && s.stage === 'review')?.result as ReviewResult;

async function replayCli(r: ReviewRepo, runId: string) {
  const res = await runCli(['replay', runId, '--json'], { cwd: r.dir });
  expect(res.code, res.stderr).toBe(0);
  expect(res.json).toMatchObject({ identical: true });
}

describe('point 2: the reviewers of a round run side by side', () => {
  it('three reviewers that pass only once all three have started: clear, recorded in configured order, replayed identical', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          ...fast,
          reviewers: ['c', 'a', 'b'].map((name) => ({
            name,
            command: [process.execPath, RENDEZVOUS, join(a.command[2] ?? '', '..', 'meet'), '3'],
          })),
        }),
    });
    repos.push(r);
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, timeoutMs: 240_000 });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear' });
    const runId = res.json?.runId as string;
    const rounds = res.json?.rounds as { verdicts: { reviewer: string }[] }[];
    expect(rounds[0]?.verdicts.map((v) => v.reviewer)).toEqual(['c', 'a', 'b']);
    const rep = await replayedReportIn(r, runId);
    expect(reviewOf(rep).verdicts.map((v) => v.reviewer)).toEqual(['c', 'a', 'b']);
    await replayCli(r, runId);
  }, 300_000);

  it('review.concurrency 1 runs them one at a time: the same rendezvous of two can never meet', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          ...fast,
          review: { concurrency: 1 },
          reviewers: ['a', 'b'].map((name) => ({
            name,
            command: [process.execPath, RENDEZVOUS, join(a.command[2] ?? '', '..', 'meet'), '2', '1500'],
          })),
        }),
    });
    repos.push(r);
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, timeoutMs: 240_000 });
    expect(res.json).toMatchObject({ status: 'failed', outcome: null });
    expect(String(res.json?.detail)).toContain('reviewer a');
  }, 300_000);

  it("without review.concurrency, one reviewer's chunks run four at a time: a rendezvous of four chunk calls meets", async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          ...fast,
          review: { chunkBytes: 1000 },
          reviewers: [
            {
              name: 'solo',
              command: [process.execPath, RENDEZVOUS, join(a.command[2] ?? '', '..', 'meet'), '4', '10000'],
            },
          ],
        }),
      change: Object.fromEntries(['a', 'b', 'c', 'd'].map((t) => [`src/${t}.js`, body(t, 12)])),
    });
    repos.push(r);
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir, timeoutMs: 240_000 });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear' });
    const runId = res.json?.runId as string;
    // Recorded in chunk order, as one at a time would have.
    const rep = await replayedReportIn(r, runId);
    expect(reviewOf(rep).verdicts.map((v) => v.chunk?.index)).toEqual([0, 1, 2, 3]);
    await replayCli(r, runId);
  }, 300_000);

  it('the cost budget is checked before each call starts: side by side all three spend, one at a time the third never starts', async () => {
    const three = (a: { command: string[] }, extra: Record<string, unknown>) =>
      baseConfig(a, {
        budgets: { rounds: 3, wallSeconds: 600, costUsd: 5 },
        reviewers: ['a', 'b', 'c'].map((name) => ({ name, ...a })),
        ...extra,
      });
    const plan = { 'reviewer:a': [paid(3)], 'reviewer:b': [paid(3)], 'reviewer:c': [paid(3)] };
    const wide = await makeReviewRepo({ config: (a) => three(a, {}) });
    const narrow = await makeReviewRepo({ config: (a) => three(a, { review: { concurrency: 1 } }) });
    repos.push(wide, narrow);
    wide.plan(plan);
    narrow.plan(plan);
    const w = await runCli(['review', '--head', 'topic', '--json'], { cwd: wide.dir });
    // All three started at $0: the round overshoots by the calls in flight, the record states it, never clear.
    expect(w.json).toMatchObject({
      status: 'completed',
      outcome: 'findings',
      stopReason: 'budget',
      costUsd: 9,
    });
    expect(wide.counts()).toEqual({ 'reviewer:a': 1, 'reviewer:b': 1, 'reviewer:c': 1 });
    await replayedReportIn(wide, w.json?.runId as string);
    const n = await runCli(['review', '--head', 'topic', '--json'], { cwd: narrow.dir });
    expect(n.json).toMatchObject({ status: 'aborted', reason: 'budget_cost', costUsd: 6 });
    expect(narrow.counts()['reviewer:c']).toBeUndefined();
  }, 300_000);
});

describe('point 3: chunked review with coverage', () => {
  const change = Object.fromEntries(['a', 'b', 'c', 'd'].map((t) => [`src/${t}.js`, body(t, 12)]));

  it("a finding every chunk call repeats on one file (outside most calls' chunks) is recorded once, from the first call", async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { review: { chunkBytes: 1500 } }),
      change,
    });
    repos.push(r);
    const same = {
      severity: 'MAJOR',
      file: 'src/a.js',
      line: 2,
      claim: 'a0 and a1 are exported constants nothing locks',
      failureScenario:
        'two callers each import a1 and expect their own copy; a write by one is seen by the other',
    };
    r.plan({ reviewer: [{ reply: findings(same) }] });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      const calls = reviewOf(report).verdicts;
      expect(calls.length).toBeGreaterThan(1);
      expect(r.counts()).toEqual({ reviewer: calls.length });
      expect(report.findings.map((f) => [f.reviewer, f.reported.file, f.reported.line])).toEqual([
        ['correctness', 'src/a.js', 2],
      ]);
      expect(report.findings[0]?.callKey).toBe(calls[0]?.callKey);
    } finally {
      await p.close();
    }
  });

  it('a diff over review.chunkBytes is split by file, each chunk its own key; coverage is in the round, the JSON and the record, and verify checks it', async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          review: { chunkBytes: 1500 },
          reviewers: [
            { name: 'x', ...a },
            { name: 'y', ...a },
          ],
        }),
      change,
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    const runId = res.json?.runId as string;
    const rep = await replayedReportIn(r, runId);
    const rv = reviewOf(rep);
    const chunks = rv.verdicts.filter((v) => v.reviewer === 'x').map((v) => v.chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((c) => c?.files ?? []).sort()).toEqual([
      'src/a.js',
      'src/b.js',
      'src/c.js',
      'src/d.js',
    ]);
    // Configured order: every chunk of x, then every chunk of y.
    expect(rv.verdicts.map((v) => v.reviewer)).toEqual([...chunks.map(() => 'x'), ...chunks.map(() => 'y')]);
    // Each chunk's key is the call key with its index and files: stable for a resume of the run.
    for (const v of rv.verdicts) {
      const row = rep.verdicts.find((x) => x.callKey === v.callKey);
      const parts = {
        snapshotKey: rep.run.snapshotKey,
        runId,
        round: 1,
        stage: 'review' as const,
        role: 'reviewer' as const,
        name: v.reviewer,
        promptDigest: row?.promptDigest ?? '',
        chunk: v.chunk,
      };
      expect(callKey(parts, sha256)).toBe(v.callKey);
    }
    for (const name of ['x', 'y']) expect(rv.coverage?.[name]?.reviewed).toHaveLength(4);
    const st = await runCli(['status', runId], { cwd: r.dir });
    expect(st.stdout).toContain(
      `0 blocking, 0 finding(s)  ·  4 file(s) reviewed in ${chunks.length} parts\n`,
    );
    const rounds = res.json?.rounds as { coverage: ReviewResult['coverage']; verdicts: unknown[] }[];
    expect(rounds[0]?.coverage).toEqual(rv.coverage);
    // review --json names each verdict's chunk, in the review's order.
    expect(rounds[0]?.verdicts).toEqual(
      rv.verdicts.map((v) => ({ reviewer: v.reviewer, verdict: 'pass', model: null, chunk: v.chunk })),
    );
    const recordPath = res.json?.record as string;
    const record = JSON.parse(readFileSync(recordPath, 'utf8'));
    const predicate = JSON.parse(Buffer.from(record.payload, 'base64').toString('utf8')).predicate;
    expect(predicate.coverage).toEqual(rv.coverage);
    const ok = await runCli(['verify', recordPath], { cwd: r.dir });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    await replayCli(r, runId);

    // The same run's record, signed with the same key but with a file y never saw: verify refuses it.
    const gap: RunReport = {
      ...rep,
      stages: rep.stages.map((s) => {
        if (s.stage !== 'review') return s;
        const res2 = s.result as ReviewResult;
        const y = res2.coverage?.y;
        if (!y) return s;
        return {
          ...s,
          result: { ...res2, coverage: { ...res2.coverage, y: { ...y, reviewed: y.reviewed.slice(1) } } },
        };
      }),
    };
    const forged = join(r.dir, '.revloop', 'gap.json');
    const statement = buildStatement(gap, { finalDiffDigest: predicate.finalDiffDigest });
    writeRecord(signStatement(statement, loadSigner(join(r.dir, '.revloop', 'keys', 'signing.key'))), forged);
    const bad = await runCli(['verify', forged, '--json'], { cwd: r.dir });
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ ok: false, code: 'incomplete_coverage' });
  }, 300_000);

  it('a diff under the limit keeps the call key it had before chunking (no chunk in the key)', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const p = await inProcess(r.dir);
    try {
      const out = await review(p, r.dir);
      const rv = reviewOf(out.report);
      const v = rv.verdicts[0];
      expect(v?.chunk).toBeUndefined();
      const row = out.report.verdicts[0];
      const key = callKey(
        {
          snapshotKey: out.run.snapshotKey,
          runId: out.run.id,
          round: 1,
          stage: 'review',
          role: 'reviewer',
          name: 'correctness',
          promptDigest: row?.promptDigest ?? '',
        },
        sha256,
      );
      expect(v?.callKey).toBe(key);
      const prompt = readFileSync(join(r.dir, '.revloop', 'prompts', `${row?.promptDigest}.txt`), 'utf8');
      expect(prompt).toMatch(
        /## Diff\n<<<REVLOOP-DATA-[0-9a-f]{32}\ndiff --git a\/src\/calc.js b\/src\/calc.js/,
      );
    } finally {
      await p.close();
    }
  }, 300_000);

  it('a chunk that fails fails the run: no partial clear, the other chunks stay recorded', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { ...fast, review: { chunkBytes: 1500, concurrency: 1 } }),
      change,
    });
    repos.push(r);
    // The last file is never in the first chunk: the chunks before it are answered and stay recorded.
    r.plan({ reviewer: [{ when: 'diff --git a/src/d.js', exit: 1 }, { reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.json).toMatchObject({ status: 'failed', outcome: null, record: null });
    const rep = await replayedReportIn(r, res.json?.runId as string);
    expect(rep.stages.some((s) => s.stage === 'review')).toBe(false);
    expect(rep.verdicts.length).toBeGreaterThanOrEqual(1);
  }, 300_000);

  it("a chunked round's verdicts count toward the cost budget the moment their calls end, before their commit (invariant 12)", async () => {
    const r = await makeReviewRepo({
      config: (a) =>
        baseConfig(a, {
          budgets: { rounds: 3, wallSeconds: 600, costUsd: 5 },
          review: { chunkBytes: 1500, concurrency: 1 },
        }),
      change,
    });
    repos.push(r);
    r.plan({ reviewer: [paid(3)] });
    // Every commit of verdicts is held back 2 s, so the next chunk's budget check meets the
    // spend of calls whose verdicts are queued, not yet in the ledger.
    const p = await inProcess(r.dir, {
      tweak: (d) => ({
        ...d,
        store: withMethod(d.store, 'recordVerdicts', (record) => async (...args) => {
          await new Promise((ok) => setTimeout(ok, 2000));
          return record(...args);
        }),
      }),
    });
    try {
      const res = await reviewRevision(p.deps, { repoDir: r.dir, headRef: 'topic', configFrom: 'base' });
      if (res.kind !== 'run') throw new Error(`admission deferred: ${res.detail}`);
      // Two chunk calls spend $6 of $5: the third never starts.
      expect(res.run).toMatchObject({ status: 'aborted', reason: 'budget_cost', costUsd: 6 });
      expect(r.counts()).toEqual({ reviewer: 2 });
    } finally {
      await p.close();
    }
  }, 300_000);

  it('one file too large for any call fails the run missing_context, naming it and the ignore line', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { review: { chunkBytes: 1000 } }),
      change: { 'assets/blob.js': `${'y'.repeat(3000)}\n` },
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.json).toMatchObject({ status: 'failed', reason: 'missing_context' });
    expect(String(res.json?.detail)).toContain('assets/blob.js');
    expect(String(res.json?.detail)).toContain('ignore: ["assets/blob.js"]');
    expect(r.counts()).toEqual({});
  }, 300_000);

  /** A passing review of the repository's change, run by the CLI and replayed: its coverage and its one prompt. */
  async function oneCallReview(r: ReviewRepo): Promise<{ reviewed: string[] | undefined; prompt: string }> {
    r.plan({ reviewer: [{ reply: pass }] });
    const res = await runCli(['review', '--head', 'topic', '--json'], { cwd: r.dir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ status: 'completed', outcome: 'clear' });
    const runId = res.json?.runId as string;
    const rep = await replayedReportIn(r, runId);
    const rv = reviewOf(rep);
    // One call, unchunked.
    expect(rv.verdicts).toHaveLength(1);
    const digest = rep.verdicts.find((v) => v.callKey === rv.verdicts[0]?.callKey)?.promptDigest;
    await replayCli(r, runId);
    return {
      reviewed: rv.coverage?.correctness?.reviewed,
      prompt: readFileSync(join(r.dir, '.revloop', 'prompts', `${digest}.txt`), 'utf8'),
    };
  }

  it('a binary file rides as the line git writes for it: a 300 KB image is reviewed, not sent as base85 nor refused as too large', async () => {
    // As base85 these 300 KB were a 387 KB section, over the 200 KB default on its own.
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a),
      change: { 'src/a.js': body('a', 3), 'assets/logo.png': binaryBytes(300_000, 7) },
    });
    repos.push(r);
    const { reviewed, prompt } = await oneCallReview(r);
    expect(reviewed).toEqual(['assets/logo.png', 'src/a.js']);
    expect(prompt).toContain('\nBinary files /dev/null and b/assets/logo.png differ\n');
    expect(prompt).not.toContain('GIT binary patch');
    expect(prompt.length).toBeLessThan(20_000);
  }, 300_000);

  it("moved files ride as git's renames: moving two 330 KB files, one with an edit, costs a few lines of prompt, not two copies each over the limit", async () => {
    const big = body('m', 5500);
    const edited = body('e', 5500);
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a),
      files: { 'src/big.js': big, 'src/edited.js': edited },
      change: { 'lib/big.js': big, 'lib/edited.js': `${edited}export const added = 1;\n` },
    });
    repos.push(r);
    r.repo.git(['rm', '-q', 'src/big.js', 'src/edited.js']);
    r.repo.commit('move them');
    const { reviewed, prompt } = await oneCallReview(r);
    // All four paths are files of the diff, each reviewed.
    expect(reviewed).toEqual(['lib/big.js', 'lib/edited.js', 'src/big.js', 'src/edited.js']);
    expect(prompt).toContain('\nsimilarity index 100%\nrename from src/big.js\nrename to lib/big.js\n');
    expect(prompt).toMatch(
      /\nsimilarity index 99%\nrename from src\/edited\.js\nrename to lib\/edited\.js\n/,
    );
    expect(prompt).toContain('\n+export const added = 1;\n');
    expect(prompt).not.toContain('export const m1 ');
    expect(prompt.length).toBeLessThan(20_000);
  }, 300_000);
});

describe('point 4: ignore globs', () => {
  it('read at the base: an ignored file is left out of the prompt, marked in coverage, and a finding on it is dropped with the rule', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { ignore: ['gen/**'] }),
      change: { 'gen/out.js': body('g', 5), 'src/calc.js': '// changed\n' },
    });
    repos.push(r);
    const onGen = {
      severity: 'MAJOR',
      file: 'gen/out.js',
      line: 1,
      claim: 'generated code is wrong',
      failureScenario: 'any caller gets the wrong constant',
    };
    r.plan({ reviewer: [{ reply: findings(onGen) }] });
    const p = await inProcess(r.dir);
    try {
      const out = await review(p, r.dir);
      expect(out.run.outcome).toBe('clear');
      const rv = reviewOf(out.report);
      expect(rv.dropped).toEqual([
        {
          reviewer: 'correctness',
          callKey: rv.verdicts[0]?.callKey,
          index: 0,
          file: 'gen/out.js',
          rule: 'ignore: "gen/**"',
        },
      ]);
      expect(rv.coverage?.correctness).toEqual({
        files: [{ path: 'gen/out.js', ignored: 'ignore: "gen/**"' }, { path: 'src/calc.js' }],
        reviewed: ['src/calc.js'],
        ignored: [{ path: 'gen/out.js', rule: 'ignore: "gen/**"' }],
      });
      expect(out.report.findings).toEqual([]);
      const digest = out.report.verdicts[0]?.promptDigest;
      const prompt = readFileSync(join(r.dir, '.revloop', 'prompts', `${digest}.txt`), 'utf8');
      expect(prompt).not.toContain('gen/out.js');
      expect(out.run.snapshot.ignore).toEqual({ globs: ['gen/**'], attributes: [] });
      // The job summary says it too, and lists the file with its rule.
      const md = toMarkdown(out.report);
      expect(md).toContain('| files | 1 of 1 file(s) reviewed by every reviewer; 1 left out by `ignore:` |');
      expect(md).toContain("<summary>Left out by the config's ignore rules (1)</summary>");
      expect(md).toContain('- `gen/out.js`: `ignore: "gen/**"`');
      // So does the CI gate's one line.
      const v = await runCli(['verify', out.run.recordPath ?? ''], { cwd: r.dir });
      expect(v.code, v.stderr).toBe(0);
      expect(v.stdout).toContain("outcome clear, 1 file(s) left out by the config's ignore rules");
      // The terminal's round line says what was left out.
      expect(renderRunSummary(out.report)).toContain(
        'round 1  ' +
          out.run.head.slice(0, 7) +
          '  0 blocking, 0 finding(s)  ·  1 file(s) reviewed, 1 ignored\n',
      );
    } finally {
      await p.close();
    }
  }, 300_000);

  it('a change of ignored files only makes no reviewer call and is covered vacuously', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { ignore: ['gen/**'] }),
      change: { 'gen/out.js': body('g', 3) },
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const p = await inProcess(r.dir);
    try {
      const out = await review(p, r.dir);
      expect(out.run.outcome).toBe('clear');
      expect(r.counts()).toEqual({});
      expect(reviewOf(out.report).coverage?.correctness).toMatchObject({
        reviewed: [],
        ignored: [{ path: 'gen/out.js', rule: 'ignore: "gen/**"' }],
      });
    } finally {
      await p.close();
    }
  }, 300_000);

  it('a change that widens the ignore list at its head ignores nothing by it, and its config edit needs a person', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    const cfg = JSON.parse(readFileSync(join(r.dir, 'revloop.config.yaml'), 'utf8'));
    writeFileSync(
      join(r.dir, 'revloop.config.yaml'),
      JSON.stringify({ ...cfg, ignore: ['src/**'] }, null, 2),
    );
    writeFileSync(join(r.dir, 'src/calc.js'), `${readFileSync(join(r.dir, 'src/calc.js'), 'utf8')}// more\n`);
    r.repo.commit('widen the ignore list');
    r.plan({ reviewer: [{ reply: pass }] });
    const p = await inProcess(r.dir);
    try {
      const out = await review(p, r.dir);
      const rv = reviewOf(out.report);
      expect(rv.coverage?.correctness?.reviewed).toContain('src/calc.js');
      expect(rv.coverage?.correctness?.ignored).toEqual([]);
      expect(rv.protectedEdited).toEqual(['revloop.config.yaml']);
      expect(out.run.outcome).not.toBe('clear');
    } finally {
      await p.close();
    }
  }, 300_000);

  it('linguist attributes at the base, when asked: a generated file is left out by its .gitattributes line', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a, { review: { ignoreLinguist: true } }),
      files: { '.gitattributes': '*.pb.js linguist-generated\n' },
      change: { 'api/x.pb.js': body('p', 3), 'src/calc.js': '// edited\n' },
    });
    repos.push(r);
    r.plan({ reviewer: [{ reply: pass }] });
    const p = await inProcess(r.dir);
    try {
      const out = await review(p, r.dir);
      expect(out.run.outcome).toBe('clear');
      expect(reviewOf(out.report).coverage?.correctness?.ignored).toEqual([
        { path: 'api/x.pb.js', rule: '.gitattributes: "*.pb.js linguist-generated"' },
      ]);
      expect(out.run.snapshot.protectedPaths).toContain('.gitattributes');
    } finally {
      await p.close();
    }
  }, 300_000);
});
