// Repeat sampling's cost on the shipped corpus (corpus/, 37 cases, 12 clean):
// the seeded noisy reviewer (test/fixtures/eval/noisy.mjs: each known defect
// with p 0.8, a false alarm with q 0.2, per sample, $0.01 a call) run once
// with one sample and once with `samples { n: 3, block: 2, on: blockers }`.
// `on: blockers` draws the other two samples only where the first raised a
// blocker, so its cost is 1 + 2 x (share of first samples with a blocker) of
// the single run's: the target is that this accounting holds exactly, and
// that on the clean cases (where a pass is the common answer) it costs at
// most 1.5 x. The whole-corpus ratio is printed: with 25 of 37 cases
// carrying a defect a good reviewer finds, it is well above 1.5.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;

function config(dir, name, review) {
  writeFileSync(join(dir, 'criteria.md'), '# criteria\n');
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      criteria: 'criteria.md',
      reviewers: [
        {
          name: 'noisy',
          command: ['node', join(root, 'test/fixtures/eval/noisy.mjs')],
          env: ['EVAL_CORPUS', 'NOISY_P', 'NOISY_Q', 'NOISY_COST'],
        },
      ],
      budgets: { rounds: 1, wallSeconds: 900, costUsd: 10 },
      review: { concurrency: 3, ...review },
    }),
  );
  return file;
}

export default async function () {
  const { evaluate } = await import(dist('eval/evaluate.js'));
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-samples-'));
  try {
    return await measure(evaluate, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(evaluate, dir) {
  const corpus = join(root, 'corpus');
  // Unconfined: the reviewer reads its case from the checkout's git, whose common dir a confined
  // runner does not bind (what is measured here is calls, not confinement).
  const env = { ...process.env, REVLOOP_CONFINE: 'off', EVAL_CORPUS: join(corpus, 'corpus.json') };
  const run = (cfg) => evaluate({ corpus, config: cfg, mode: 'review', window: 3, env });
  const single = await run(config(dir, 'single', {}));
  const sampled = await run(config(dir, 'sampled', { samples: { n: 3, block: 2, on: 'blockers' } }));
  const cases = (r) => r.primary.cases ?? [];
  const cost = (r, pick = () => true) =>
    cases(r)
      .filter(pick)
      .reduce((s, c) => s + (c.ran ? c.costUsd : 0), 0);
  const clean = (c) => c.clean === true;
  const ratio = cost(sampled) / cost(single);
  const cleanRatio = cost(sampled, clean) / cost(single, clean);
  // Each case's single run is one call: the share of first samples that raised a blocker.
  const firstCalls = cases(single).length;
  const drawnAgain = Math.round((cost(sampled) - cost(single)) / 0.02);
  const metrics = (r) => r.primary.reviewers.at(-1).metrics;
  const m1 = metrics(single);
  const m3 = metrics(sampled);
  const expected = 1 + (2 * drawnAgain) / firstCalls;
  return {
    name: 'repeat sampling on the corpus (seeded noisy reviewer)',
    target: 'on: blockers costs 1 + 2 x (first samples with a blocker); clean cases <= 1.5 x',
    pass:
      single.primary.complete &&
      sampled.primary.complete &&
      Math.abs(ratio - expected) < 1e-6 &&
      cleanRatio <= 1.5,
    lines: [
      `single sample: $${cost(single).toFixed(2)}; n 3, block 2, on blockers: $${cost(sampled).toFixed(2)} (${ratio.toFixed(2)} x)`,
      `clean cases only: ${cleanRatio.toFixed(2)} x; first samples that drew two more: ${drawnAgain} of ${firstCalls}`,
      `recall ${m1.recall} -> ${m3.recall}; false-positive rate (clean cases with a blocker) ${m1.falsePositiveRate} -> ${m3.falsePositiveRate}`,
    ],
  };
}
