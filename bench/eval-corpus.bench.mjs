// `revloop eval` of the shipped corpus (corpus/, 37 cases) with scripted
// reviewers (two of them, every case through admission, the review round,
// the scratch ledger and matching): target under 60 s on this machine, the
// bound issue 21 sets. Also the same corpus with a subprocess reviewer that
// knows every defect (test/fixtures/eval/oracle.mjs), for the cost of a
// process per call, and its recall as a check that the run scored.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;

function config(dir, reviewers) {
  writeFileSync(join(dir, 'criteria.md'), '# criteria\n');
  const file = join(dir, `${reviewers[0].name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      criteria: 'criteria.md',
      reviewers,
      budgets: { rounds: 1, wallSeconds: 900, costUsd: 1 },
    }),
  );
  return file;
}

export default async function () {
  const { evaluate } = await import(dist('eval/evaluate.js'));
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-eval-'));
  try {
    return await measure(evaluate, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Both evals, with their configs and script in `dir`. */
async function measure(evaluate, dir) {
  const script = join(dir, 'replies.json');
  const pass = { '*': { reply: { verdict: 'pass', findings: [] } } };
  writeFileSync(script, JSON.stringify({ first: pass, second: pass }));
  const scripted = config(dir, [
    { name: 'first', adapter: 'scripted', script },
    { name: 'second', adapter: 'scripted', script },
  ]);
  const corpus = join(root, 'corpus');
  const t0 = Date.now();
  const a = await evaluate({ corpus, config: scripted, mode: 'review', window: 3, env: process.env });
  const scriptedS = (Date.now() - t0) / 1000;
  const oracle = config(dir, [
    { name: 'oracle', command: ['node', join(root, 'test/fixtures/eval/oracle.mjs')] },
  ]);
  const t1 = Date.now();
  const b = await evaluate({
    corpus,
    config: oracle,
    mode: 'review',
    window: 3,
    env: { ...process.env, EVAL_CORPUS: join(corpus, 'corpus.json') },
  });
  const oracleS = (Date.now() - t1) / 1000;
  const recall = b.primary.reviewers.at(-1).metrics.recall;
  return {
    name: 'eval of the shipped corpus',
    target: 'scripted reviewers < 60 s, every case ran',
    pass: scriptedS < 60 && a.primary.complete,
    lines: [
      `scripted (2 reviewers): ${a.primary.totals.ran}/${a.primary.totals.cases} cases in ${scriptedS.toFixed(1)} s (${((scriptedS / a.primary.totals.cases) * 1000).toFixed(0)} ms a case)`,
      `subprocess oracle: ${b.primary.totals.ran}/${b.primary.totals.cases} cases in ${oracleS.toFixed(1)} s, recall ${recall}`,
    ],
  };
}
