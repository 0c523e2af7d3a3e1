// One 5-round review loop on a fixture repository, timed as the controller
// sees it: three reviewers that keep raising the same blocker, a fixer whose
// edit never satisfies them (it edits a line the finding does not cite, so
// every round commits), budgets.rounds 5, the stop rule off through a large
// stopWindow. Scripted agents, so each call takes exactly the delay asked
// for; the rest of the wall time is the controller's (git, the ledger on a
// real SQLite file, the record). Shared by loop-overhead and realistic-loop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timeAgentCalls } from '../timed-calls.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href;
export const ROUNDS = 5;
export const REVIEWERS = ['correctness', 'standards', 'annotations'];

const BASE = 'export function add(a, b) {\n  return a + b;\n}\n';
const HEAD = `${BASE}\nlet total = 0;\nexport async function deposit(n) {\n  const seen = total;\n  await Promise.resolve();\n  total = seen + n;\n  return total;\n}\n`;

function script(reviewerMs, fixerMs) {
  const finding = {
    severity: 'MAJOR',
    file: 'src/calc.js',
    line: 7,
    endLine: 10,
    claim: 'deposit reads total before an await and writes it after',
    failureScenario: 'two concurrent deposit(5) calls both read 0 and both write 5, so total ends at 5',
  };
  const s = {};
  for (const r of REVIEWERS)
    s[r] = { '*': { delayMs: reviewerMs, reply: { verdict: 'findings', findings: [finding] } } };
  s.fixer = {};
  for (let i = 1; i <= ROUNDS; i++)
    s.fixer[String(i)] = {
      delayMs: fixerMs,
      write: { 'src/calc.js': HEAD.replace('a + b;', `a + b; // ${i}`) },
      reply: { disputed: [] },
    };
  return s;
}

/**
 * Runs the loop once. `reviewerMs`/`fixerMs` are each agent call's own time.
 * Returns wall time (admission to signed record), the reviewers' and the
 * fixer's time as their calls actually took it (a timer fires a little late;
 * that lateness is the agent's, not the controller's), and where the
 * controller's time went.
 */
export async function loopOnce(reviewerMs, fixerMs = 0) {
  const { createFixtureRepo } = await import(dist('git/fixture-repo.js'));
  const { composeDeps } = await import(dist('loop/compose.js'));
  const { reviewRevision } = await import(dist('loop/operations.js'));
  const { openStore } = await import(dist('store/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-loop-'));
  const repo = await createFixtureRepo(dir);
  const config = [
    'criteria: REVIEW.md',
    'reviewers:',
    ...REVIEWERS.map((n) => `  - { name: ${n}, adapter: scripted, script: review/script.json }`),
    'fixer: { adapter: scripted, script: review/script.json }',
    `budgets: { rounds: ${ROUNDS}, wallSeconds: 600, costUsd: 5 }`,
    'policy: { stopWindow: 50 }',
    '',
  ].join('\n');
  await repo.commit(
    {
      '.gitignore': '.revloop/\n',
      'REVIEW.md': '1. Shared state must not be updated without a lock.\n',
      'revloop.config.yaml': config,
      'review/script.json': JSON.stringify(script(reviewerMs, fixerMs)),
      'src/calc.js': BASE,
    },
    'base',
  );
  await repo.branch('topic');
  await repo.commit({ 'src/calc.js': HEAD }, 'change');
  // A repository set up with `revloop init` has its signing key; making one is not loop work.
  const { signingKeyPath } = await import(dist('loop/outputs/write-record.js'));
  signingKeyPath(dir);
  const store = await openStore('sqlite:.revloop/ledger.db', { repoRoot: dir });
  try {
    const deps = composeDeps({ store, repoRoot: dir, env: { PATH: process.env.PATH } });
    const calls = [];
    timeAgentCalls(deps, (x) => calls.push(x));
    const t0 = performance.now();
    const res = await reviewRevision(deps, { repoDir: dir, headRef: 'topic', configFrom: 'base' });
    const t1 = performance.now();
    if (res.kind !== 'run' || res.run.stopReason !== 'budget' || res.run.roundsDone !== ROUNDS)
      throw new Error(`unexpected run: ${JSON.stringify(res.run ?? res)}`);
    // Reviewers of a round run side by side: their time is the union of their calls, not the sum.
    const timeOf = (role) => unionMs(calls.filter((x) => x.role === role));
    return {
      ms: t1 - t0,
      reviewerMs: timeOf('reviewer'),
      fixerMs: timeOf('fixer'),
      windows: windowsOf(calls, t0, t1),
    };
  } finally {
    await store.close();
    const { createGit } = await import(dist('git/index.js'));
    await createGit()
      .root(dir)
      .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Time covered by at least one of the intervals. */
function unionMs(intervals) {
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const x of [...intervals].sort((a, b) => a.start - b.start)) {
    if (x.end <= end) continue;
    total += x.end - Math.max(x.start, end);
    end = x.end;
  }
  return total;
}

/**
 * Where the controller's time went: the time no agent call covered, before
 * each call (by what came before it) and after the last one. Reviewers of a
 * round run side by side, so calls are taken in the order they started and a
 * gap is measured from the latest end so far (never negative).
 */
function windowsOf(calls, t0, t1) {
  const w = { admission: 0, betweenReviewers: 0, reviewsToFixer: 0, fixerToReview: 0, fixerCalls: 0, end: 0 };
  let prev = null;
  let lastEnd = t0;
  for (const c of [...calls].sort((a, b) => a.start - b.start)) {
    const gap = Math.max(0, c.start - lastEnd);
    if (!prev) w.admission += gap;
    else if (c.role === 'fixer') w.reviewsToFixer += gap;
    else if (prev.role === 'fixer') w.fixerToReview += gap;
    else w.betweenReviewers += gap;
    if (c.role === 'fixer') w.fixerCalls += c.end - c.start;
    prev = c;
    lastEnd = Math.max(lastEnd, c.end);
  }
  w.end = t1 - lastEnd;
  return w;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const pct = (x) => `${(x * 100).toFixed(2)} %`;
