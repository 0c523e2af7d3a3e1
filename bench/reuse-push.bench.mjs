// A new push pays only for what changed: a change of 30-odd chunks reviewed
// by two priced reviewers (scripted, each declaring `reuse: prompt`), then a
// one-line push to one file reviewed again. The second review's calls per
// reviewer and its cost, against the first review measured in the same run.
// Targets: at most 2 calls per reviewer (the changed chunk and at most one
// neighbour: chunk boundaries fall by path), cost <= 0.1x the first review's,
// and the same outcome.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dist = (p) => new URL(`../dist/${p}`, import.meta.url).href;
const REVIEWERS = ['correctness', 'standards'];
const FILES = 72;
const CHUNK_BYTES = 8_000;
const COST = 0.02;

/** About 1 KB of diff per file; `edited` changes one line of one file. */
const fileText = (i, edited) =>
  Array.from(
    { length: 14 },
    (_, k) =>
      `export const v${i}_${k} = '${i === edited && k === 6 ? 'one line changed' : 'x'.repeat(40)}';\n`,
  ).join('');

const files = (edited) =>
  Object.fromEntries(
    Array.from({ length: FILES }, (_, i) => [`src/m${i % 12}/f${i}.js`, fileText(i, edited)]),
  );

async function review(dir, runs) {
  const { composeDeps } = await import(dist('loop/compose.js'));
  const { reviewRevision } = await import(dist('loop/operations.js'));
  const { openStore } = await import(dist('store/index.js'));
  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  try {
    const deps = composeDeps({ store, repoRoot: dir, env: { PATH: process.env.PATH } });
    const res = await reviewRevision(deps, { repoDir: dir, headRef: 'topic', configFrom: 'base' });
    const attempts = await store.listAttempts(res.run.id);
    const verdicts = await store.listVerdicts(res.run.id);
    const run = await store.getRun(res.run.id);
    const perReviewer = Object.fromEntries(
      REVIEWERS.map((r) => [r, attempts.filter((a) => a.reviewer === r).length]),
    );
    runs.push(res.run.id);
    return {
      outcome: run?.outcome,
      costUsd: run?.costUsd ?? 0,
      perReviewer,
      chunks: verdicts.length / REVIEWERS.length,
      reused: verdicts.filter((v) => v.reusedFrom).length,
    };
  } finally {
    await store.close();
  }
}

export default async function bench() {
  const { createFixtureRepo } = await import(dist('git/fixture-repo.js'));
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-reuse-'));
  try {
    const repo = await createFixtureRepo(dir);
    const script = Object.fromEntries(
      REVIEWERS.map((r) => [
        r,
        { '*': { reply: { verdict: 'pass', findings: [], usage: { costUsd: COST } } } },
      ]),
    );
    await repo.commit(
      {
        '.gitignore': '.revloop/\n',
        'REVIEW.md': '1. Be correct.\n',
        'revloop.config.yaml': [
          'criteria: REVIEW.md',
          'reviewers:',
          ...REVIEWERS.map(
            (r) => `  - { name: ${r}, adapter: scripted, script: review/script.json, reuse: prompt }`,
          ),
          `review: { chunkBytes: ${CHUNK_BYTES} }`,
          'budgets: { costUsd: 50 }',
          '',
        ].join('\n'),
        'review/script.json': JSON.stringify(script),
      },
      'base',
    );
    await repo.branch('topic');
    await repo.commit(files(-1), 'a large change');
    const { signingKeyPath } = await import(dist('loop/outputs/write-record.js'));
    signingKeyPath(dir);
    const runs = [];
    const first = await review(dir, runs);
    await repo.commit(files(Math.floor(FILES / 2)), 'one line');
    const second = await review(dir, runs);
    const maxCalls = Math.max(...Object.values(second.perReviewer));
    const ratio = second.costUsd / first.costUsd;
    const pass =
      first.chunks >= 25 &&
      first.chunks <= 40 &&
      maxCalls <= 2 &&
      ratio <= 0.1 &&
      second.outcome === first.outcome &&
      second.outcome === 'clear';
    return {
      name: 'reuse across a one-line push (30-odd chunks, two priced reviewers)',
      target: 'second review <= 2 calls per reviewer, cost <= 0.1x the first review, same outcome',
      pass,
      lines: [
        `first review: ${first.chunks} chunks, calls per reviewer ${JSON.stringify(first.perReviewer)}, $${first.costUsd.toFixed(2)}, ${first.outcome}`,
        `after a one-line push: calls per reviewer ${JSON.stringify(second.perReviewer)}, ${second.reused} verdicts reused, $${second.costUsd.toFixed(2)}, ${second.outcome}`,
        `cost ratio ${ratio.toFixed(3)} (target <= 0.1)`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
