/**
 * The optional judge on a prose corpus (defects without line ranges): real
 * scratch repositories from the shipped bundles, a real subprocess reviewer,
 * and judges that are real subprocesses (a `command` agent) or scripted.
 * A judge saying yes raises precision; a malformed one is named with the
 * case and the field; a kept ledger replays without calling the judge.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RanCase } from '../../src/eval/case-result.js';
import { evaluate } from '../../src/eval/evaluate.js';
import { judgePairs } from '../../src/eval/judge-match.js';
import type { Scorecard } from '../../src/eval/scorecard.js';
import { OVERALL } from '../../src/eval/scores.js';
import { openStore } from '../../src/store/index.js';
import { CORPUS, FIXTURES } from './support.js';

const shipped = JSON.parse(readFileSync(join(CORPUS, 'corpus.json'), 'utf8'));

/** The first five shipped cases (two clean, three known-bug), their defects made prose. */
function proseCorpus(extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-prose-'));
  mkdirSync(join(dir, 'bundles'));
  const cases = structuredClone(shipped.cases.slice(0, 5)) as {
    bundle: string;
    defects?: Record<string, unknown>[];
  }[];
  for (const c of cases) {
    copyFileSync(join(CORPUS, c.bundle), join(dir, c.bundle));
    for (const [i, d] of (c.defects ?? []).entries()) {
      delete d.line;
      delete d.endLine;
      // Some prose defects name their file, some only describe the change.
      if (i % 2 === 1) delete d.file;
    }
  }
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ version: 1, ...extra, cases }));
  return dir;
}

/** every-file.mjs as the reviewer (one finding on line 1 of every changed file), and the given judge. */
function config(judge: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-judge-cfg-'));
  writeFileSync(join(dir, 'criteria.md'), '# criteria\n\n1. Do not bring back a fixed bug.\n');
  const file = join(dir, 'eval.yaml');
  writeFileSync(
    file,
    `criteria: criteria.md\nreviewers:\n  - name: everyfile\n    command: [node, ${join(FIXTURES, 'every-file.mjs')}]\n    env: [EVAL_LINE]\nbudgets: { rounds: 1, wallSeconds: 900, costUsd: 1 }\ntimeouts: { callSeconds: 300 }\n${judge ?? ''}`,
  );
  return file;
}

const commandJudge = `judge:\n  command: [node, ${join(FIXTURES, 'judge.mjs')}]\n  env: [JUDGE_SAYS, JUDGE_LOG]\n`;

async function run(
  corpus: string,
  cfg: string,
  env: Record<string, string> = {},
  keep?: { ledger: string; dir: string },
) {
  return evaluate({
    corpus,
    config: cfg,
    mode: 'review',
    window: 3,
    env: { PATH: process.env.PATH, ...env },
    bootstrap: { seed: 1, resamples: 50, level: 0.95 },
    ledger: keep?.ledger,
    keepDir: keep?.dir,
  });
}

const overall = (s: Scorecard) => s.reviewers.find((r) => r.reviewer === OVERALL)!;
const ranCases = (s: Scorecard) => s.cases.filter((c): c is RanCase => c.ran);

describe('eval with a judge, on a prose corpus', () => {
  it('without a judge, each known-bug case is not run and names the field; clean cases still run', async () => {
    const res = await run(proseCorpus(), config(null));
    const notRun = res.primary.cases.filter((c) => !c.ran);
    expect(notRun.map((c) => (c.ran ? '' : c.field))).toEqual([
      'defects[0].line',
      'defects[0].line',
      'defects[0].line',
    ]);
    expect(notRun[0]?.ran === false && notRun[0].error).toMatch(/--config has no judge:/);
    expect(res.primary.totals).toMatchObject({ cases: 5, ran: 2, notRun: 3 });
  }, 240_000);

  it('a judge that says yes to everything raises precision above one that says no (a real subprocess judge)', async () => {
    const corpus = proseCorpus();
    const log = join(mkdtempSync(join(tmpdir(), 'revloop-judge-log-')), 'calls');
    const yes = await run(corpus, config(commandJudge), { JUDGE_SAYS: 'yes', JUDGE_LOG: log });
    const no = await run(corpus, config(commandJudge), { JUDGE_SAYS: 'no' });
    expect(yes.primary.complete).toBe(true);
    expect(no.primary.complete).toBe(true);
    // Worked out from the findings alone: each reviewer's finding takes one defect it may describe.
    let expected = 0;
    let pairs = 0;
    for (const c of ranCases(yes.primary)) {
      const free = c.defects.map((d) => d);
      for (const f of c.findings) {
        const k = free.findIndex((d) => d !== null && (d.file === undefined || d.file === f.file));
        if (k >= 0) {
          expected++;
          free[k] = null as never;
        }
      }
      const all = c.defects.map((_, i) => i);
      const asked = judgePairs(
        c.findings,
        c.defects,
        all,
        c.findings.map(() => null),
      ).length;
      pairs += asked;
      // Every pair judged, and judged now: nothing was recorded before this eval.
      expect(c.judged).toEqual({ pairs: asked, called: asked });
    }
    expect(expected).toBeGreaterThan(0);
    expect(overall(yes.primary).tally.matchedFindings).toBe(expected);
    expect(overall(no.primary).tally.matchedFindings).toBe(0);
    expect(overall(yes.primary).metrics.precision).toBeGreaterThan(
      overall(no.primary).metrics.precision ?? 0,
    );
    expect(overall(yes.primary).metrics.recall).toBeGreaterThan(0);
    // One call per pair, each as a judge (REVLOOP_ROLE), each under its own call key.
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls).toHaveLength(pairs);
    expect(calls.every((l) => l.startsWith('judge '))).toBe(true);
    expect(new Set(calls).size).toBe(pairs);
  }, 240_000);

  it('`match: judge` hands located defects to the judge too; a scripted judge decides by what the prompt says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-judge-script-'));
    const first = shipped.cases.find((c: { defects?: unknown[] }) => c.defects)!;
    writeFileSync(
      join(dir, 'judge.json'),
      JSON.stringify({
        judge: {
          '*': [
            { when: `Case: ${first.id}\n`, reply: { matches: true, reason: 'the case the script knows' } },
            { reply: { matches: false, reason: 'not this one' } },
          ],
        },
      }),
    );
    const cfg = config(`judge:\n  adapter: scripted\n  script: ${join(dir, 'judge.json')}\n`);
    const res = await run(proseCorpus({ match: 'judge' }), cfg);
    expect(res.primary.complete).toBe(true);
    const matched = ranCases(res.primary).filter((c) => c.matches.some((m) => m !== null));
    expect(matched.map((c) => c.id)).toEqual([first.id]);
  }, 240_000);

  it('a malformed judge reply: the case is not run, named with the pair and the field; totals say how many ran', async () => {
    const res = await run(proseCorpus(), config(commandJudge), { JUDGE_SAYS: 'malformed' });
    const bad = res.primary.cases.filter((c) => !c.ran);
    expect(bad).toHaveLength(3);
    for (const c of bad) {
      expect(c.ran === false && c.field).toBe('judge');
      expect(c.ran === false && c.error).toMatch(
        new RegExp(
          `^case ${c.id}: judge: finding 0 \\(reviewer everyfile, [^)]+\\) × defects\\[0\\]: malformed: judge "judge": \\$\\.matches: `,
        ),
      );
    }
    expect(res.primary.totals).toMatchObject({ cases: 5, ran: 2, notRun: 3 });
    expect(res.primary.complete).toBe(false);
  }, 240_000);

  it('on a kept ledger, a second eval replays every judgement without calling the judge', async () => {
    const corpus = proseCorpus();
    const keep = mkdtempSync(join(tmpdir(), 'revloop-eval-judge-ledger-'));
    const ledger = `sqlite:${join(keep, 'ledger.db')}`;
    const log = join(keep, 'calls');
    const env = { JUDGE_SAYS: 'yes', JUDGE_LOG: log };
    const cfg = config(commandJudge);
    const a = await run(corpus, cfg, env, { ledger, dir: join(keep, 'work') });
    const calledFirst = readFileSync(log, 'utf8').trim().split('\n').length;
    expect(calledFirst).toBeGreaterThan(0);
    const b = await run(corpus, cfg, { ...env, JUDGE_SAYS: 'no' }, { ledger, dir: join(keep, 'work') });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(calledFirst);
    expect(ranCases(b.primary).every((c) => c.judged?.called === 0)).toBe(true);
    // The recorded yes-answers, not the judge's new mind: the same scores.
    expect(overall(b.primary).tally).toEqual(overall(a.primary).tally);
    const store = await openStore(ledger, { repoRoot: keep });
    try {
      const runId = ranCases(a.primary).find((c) => !c.clean)!.runId;
      const rows = await store.listJudgements(runId);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows[0]).toMatchObject({
        judge: 'judge',
        reply: { matches: true },
        promptDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    } finally {
      await store.close();
    }
  }, 240_000);
});
