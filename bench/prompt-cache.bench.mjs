// P10 (issue 17): prompt caching. A 3-reviewer, 3-round run (anthropic
// adapters; a scripted fixer edits the file every round, so every round is a
// new revision with its own prefix) against a loopback Anthropic-compatible
// endpoint whose cache behaves like Anthropic's (bench/anthropic-cache-server.mjs),
// once with caching and once without. Input cost at the usual rates (cache
// write 1.25 x input, cache read 0.1 x input); target: with caching <= 0.55 x
// without. The floor for three reviewers sharing one prefix per round is
// (1.25 + 2 x 0.1) / 3 = 0.48 x. The run's recorded spend is checked against
// the endpoint's own token counts, priced the same way.
// The reviewers run concurrently (review.concurrency defaults to all three),
// against an endpoint that caches a prefix only once it has read the request
// writing it: the first call of a round must warm the cache before the others
// start (src/loop/calls/prefix-warming.ts). The round must stay short: the review
// stages of the cached concurrent run are timed against the same run one call
// at a time (review.concurrency 1), target <= 0.75x (three calls in series
// against a stagger of one first event).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCacheServer } from './anthropic-cache-server.mjs';

const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;
const ROUNDS = 3;
const REVIEWERS = ['correctness', 'standards', 'security'];
const PRICES = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75 };

const HELPERS = Array.from(
  { length: 120 },
  (_, i) =>
    `export function helper${i}(xs) {\n  return xs.map((x) => x * ${i + 1}).filter((x) => x % 3 !== 0);\n}\n`,
).join('\n');
const BASE = `export function add(a, b) {\n  return a + b;\n}\n\n${HELPERS}`;
const HEAD = `${BASE}\nlet total = 0;\nexport async function deposit(n) {\n  const seen = total;\n  await Promise.resolve();\n  total = seen + n;\n  return total;\n}\n`;
const DEPOSIT_LINE = HEAD.split('\n').indexOf('export async function deposit(n) {') + 1;

const FINDING = {
  severity: 'MAJOR',
  file: 'src/calc.js',
  line: DEPOSIT_LINE,
  endLine: DEPOSIT_LINE + 5,
  claim: 'deposit reads total before an await and writes it after',
  failureScenario: 'two concurrent deposit(5) calls both read 0 and both write 5, so total ends at 5',
  violatedClause: null,
  missedBecause: null,
};

async function runOnce(caching, concurrency) {
  // Calls of 1.3 s (a 300 ms prefill, then the reply): long enough that the round time is the
  // calls', not the controller's, on a loaded machine.
  const server = await startCacheServer({
    caching,
    prefillMs: 300,
    generateMs: 1000,
    reply: () => ({ verdict: 'findings', findings: [FINDING] }),
  });
  const { createFixtureRepo } = await import(dist('git/fixture-repo.js'));
  const { composeDeps } = await import(dist('loop/compose.js'));
  const { reviewRevision } = await import(dist('loop/operations.js'));
  const { openStore } = await import(dist('store/index.js'));
  const { signingKeyPath } = await import(dist('loop/outputs/write-record.js'));
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-cache-'));
  const fixer = {};
  for (let i = 1; i <= ROUNDS; i++)
    fixer[String(i)] = {
      write: { 'src/calc.js': HEAD.replace('a + b;', `a + b; // ${i}`) },
      reply: { disputed: [] },
    };
  const prices = `{ inputPerMTok: ${PRICES.inputPerMTok}, outputPerMTok: ${PRICES.outputPerMTok}, cachedInputPerMTok: ${PRICES.cachedInputPerMTok}, cacheWritePerMTok: ${PRICES.cacheWritePerMTok} }`;
  const config = [
    'criteria: REVIEW.md',
    'reviewers:',
    ...REVIEWERS.map(
      (n) =>
        `  - { name: ${n}, adapter: anthropic, baseURL: "${server.url}", model: claude-bench, prices: ${prices} }`,
    ),
    'fixer: { adapter: scripted, script: review/script.json }',
    `budgets: { rounds: ${ROUNDS}, wallSeconds: 600, costUsd: 5 }`,
    'policy: { stopWindow: 50, scopeLock: false }',
    ...(concurrency ? [`review: { concurrency: ${concurrency} }`] : []),
    '',
  ].join('\n');
  const repo = await createFixtureRepo(dir);
  await repo.commit(
    {
      '.gitignore': '.revloop/\n',
      'REVIEW.md':
        '1. Shared state must not be updated without a lock.\n2. Every exported function is tested.\n',
      'revloop.config.yaml': config,
      'review/script.json': JSON.stringify({ fixer }),
      'src/calc.js': BASE,
    },
    'base',
  );
  await repo.branch('topic');
  await repo.commit({ 'src/calc.js': HEAD }, 'change');
  signingKeyPath(dir);
  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  try {
    const deps = composeDeps({
      store,
      repoRoot: dir,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-bench-not-a-key' },
    });
    let reviewMs = 0;
    let reviewStart = null;
    deps.onEvent = (e) => {
      if (e.kind !== 'stage') return;
      const now = performance.now();
      if (reviewStart !== null) reviewMs += now - reviewStart;
      reviewStart = e.stage === 'review' ? now : null;
    };
    const res = await reviewRevision(deps, { repoDir: dir, headRef: 'topic', configFrom: 'base' });
    if (res.kind !== 'run' || res.run.roundsDone !== ROUNDS)
      throw new Error(`unexpected run: ${JSON.stringify(res.run ?? res).slice(0, 500)}`);
    const t = { ...server.tally };
    const inputUsd =
      (t.input * PRICES.inputPerMTok +
        t.cacheRead * PRICES.cachedInputPerMTok +
        t.cacheWrite * PRICES.cacheWritePerMTok) /
      1e6;
    return {
      tally: t,
      inputUsd,
      totalUsd: inputUsd + (t.output * PRICES.outputPerMTok) / 1e6,
      recordedUsd: res.run.costUsd,
      reviewMs,
    };
  } finally {
    await store.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function () {
  const on = await runOnce(true);
  const off = await runOnce(false);
  const serial = await runOnce(true, 1);
  const ratio = on.inputUsd / off.inputUsd;
  const roundRatio = on.reviewMs / serial.reviewMs;
  // The ledger sums spend in whole micro-dollars, one rounding per call.
  const recordedOk = [on, off].every((r) => Math.abs(r.recordedUsd - r.totalUsd) <= r.tally.calls * 0.5e-6);
  const usd = (x) => `$${x.toFixed(6)}`;
  const line = (name, r) =>
    `${name}: ${r.tally.calls} calls; input tokens ${r.tally.input} uncached, ${r.tally.cacheRead} cache read, ${r.tally.cacheWrite} cache write; input cost ${usd(r.inputUsd)}; run's recorded spend ${usd(r.recordedUsd)} (endpoint's counts priced: ${usd(r.totalUsd)})`;
  return {
    name: `prompt caching (P10: ${REVIEWERS.length} anthropic reviewers x ${ROUNDS} rounds, loopback cache)`,
    target:
      'input cost with caching <= 0.55 x without, reviewers concurrent; recorded spend = endpoint usage priced; review stages <= 0.75 x one call at a time',
    pass: ratio <= 0.55 && recordedOk && on.tally.calls === off.tally.calls && roundRatio <= 0.75,
    lines: [
      line('caching on ', on),
      line('caching off', off),
      line('caching on, one call at a time', serial),
      `review stages: concurrent ${on.reviewMs.toFixed(0)} ms, one at a time ${serial.reviewMs.toFixed(0)} ms: ${roundRatio.toFixed(2)}x`,
      `input cost ratio ${ratio.toFixed(3)} (floor for ${REVIEWERS.length} reviewers sharing one prefix per round: ${((1.25 + 0.1 * (REVIEWERS.length - 1)) / REVIEWERS.length).toFixed(3)}); recorded spend matches: ${recordedOk}`,
    ],
  };
}
