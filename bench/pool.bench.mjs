// P7 (issue 17): a review of a one-line change on a generated 30,000-file
// repository, with one instant reviewer (scripted), takes <= 1.5x the same
// review on a one-file repository, measured in the same run. The first review
// of each repository fills the pool and is not counted; each figure is the
// median of the reviews after it (`revloop review` as a user runs it: process
// start, admission, the checkout, the record). Also, for scale, one review on
// the big repository with the pool off (`pool: { size: 0 }`: a checkout of the
// whole tree per run, as before the pool), from a second base of the same repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../dist/cli/main.js');
const BIG = Number(process.env.REVLOOP_BENCH_POOL_FILES ?? 30_000);
const RUNS = 5;
const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@example.com',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@example.com',
  REVLOOP_STORE: '',
};
delete ENV.REVLOOP_STORE;

const git = (dir, args) =>
  execFileSync('git', args, { cwd: dir, env: ENV, encoding: 'utf8', maxBuffer: 1 << 28 }).trim();

export function makeRepo(files) {
  const dir = mkdtempSync(join(tmpdir(), `revloop-bench-pool-${files}-`));
  git(dir, ['init', '-q', '-b', 'main']);
  // Or the bench's own commits start a background gc over 30,000 loose objects mid-measurement.
  git(dir, ['config', 'gc.auto', '0']);
  git(dir, ['config', 'maintenance.auto', 'false']);
  const config = [
    'criteria: REVIEW.md',
    'reviewers:',
    '  - { name: r, adapter: scripted, script: review/script.json }',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'revloop.config.yaml'), config);
  writeFileSync(join(dir, 'REVIEW.md'), '# Criteria\n\nR1. No lost updates.\n');
  writeFileSync(join(dir, '.gitignore'), '.revloop/\n');
  mkdirSync(join(dir, 'review'));
  writeFileSync(
    join(dir, 'review/script.json'),
    JSON.stringify({ r: { '*': { reply: { verdict: 'pass', findings: [] } } } }),
  );
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/main.js'), 'export const n = 0;\n');
  // The rest: `files` small files in directories of 100, like a real tree.
  for (let i = 1; i < files - 4; i++) {
    const d = join(dir, 'pkg', `m${Math.floor(i / 100)}`);
    if (i === 1 || i % 100 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${i}.js`), `export const v${i} = ${i};\n`);
  }
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'base']);
  // A second base whose config turns the pool off: every run checks out the whole tree.
  git(dir, ['checkout', '-q', '-b', 'nopool']);
  writeFileSync(join(dir, 'revloop.config.yaml'), `${config}pool: { size: 0 }\n`);
  git(dir, ['commit', '-q', '-am', 'no pool']);
  git(dir, ['checkout', '-q', 'main']);
  return dir;
}

let change = 0;
/** One review of a new one-line change on its own branch; returns its wall time in ms. */
export function reviewOnce(dir, base = 'main') {
  const branch = `c${++change}`;
  git(dir, ['checkout', '-q', '-b', branch, base]);
  writeFileSync(join(dir, 'src/main.js'), `export const n = ${change};\n`);
  git(dir, ['commit', '-q', '-am', branch]);
  const started = process.hrtime.bigint();
  const out = execFileSync(process.execPath, [CLI, 'review', '--base', base, '--json'], {
    cwd: dir,
    env: ENV,
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const res = JSON.parse(out);
  if (res.outcome !== 'clear') throw new Error(`review on ${dir} ended ${res.status}/${res.outcome}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function bench() {
  const small = makeRepo(1);
  const big = makeRepo(BIG);
  try {
    const firstSmall = reviewOnce(small);
    const firstBig = reviewOnce(big);
    const s = [];
    const b = [];
    // Interleaved, so a burst of load on the machine falls on both.
    for (let i = 0; i < RUNS; i++) {
      s.push(reviewOnce(small));
      b.push(reviewOnce(big));
    }
    const noPool = reviewOnce(big, 'nopool');
    const ratio = median(b) / median(s);
    return {
      name: `P7 worktree pool: one-line review on a ${BIG}-file repository vs a one-file one`,
      target: 'big/small <= 1.5 (medians of 5, after the first review fills the pool)',
      pass: ratio <= 1.5,
      lines: [
        `one file: median ${median(s).toFixed(0)} ms (first ${firstSmall.toFixed(0)} ms) [${s.map((x) => x.toFixed(0)).join(', ')}]`,
        `${BIG} files: median ${median(b).toFixed(0)} ms (first, filling the pool: ${firstBig.toFixed(0)} ms) [${b.map((x) => x.toFixed(0)).join(', ')}]`,
        `ratio ${ratio.toFixed(2)}`,
        `${BIG} files with the pool off (a whole checkout per run): ${noPool.toFixed(0)} ms = ${(noPool / median(s)).toFixed(1)}x the one-file review`,
      ],
    };
  } finally {
    for (const d of [small, big]) {
      rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    }
  }
}
