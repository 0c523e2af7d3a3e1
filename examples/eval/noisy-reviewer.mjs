#!/usr/bin/env node
// A scripted reviewer whose noise is seeded, for measuring what repeat
// sampling, refutation memory and reuse do (docs/eval.md, "Seeded noise").
// It knows the answers of the case it reviews: the case id from the commit
// `revloop eval` made ("eval: case ID"), looked up in the corpus. Each call
// (case, reviewer, round, sample) then reports each known defect with
// probability --p and one false blocker with probability --q, drawn from a
// hash of those and --seed: the same call always answers the same, and the
// expected effect of sampling is the binomial one.
//
// It reads the case id with git, which a confined reviewer cannot reach (its
// checkout does not see the git directory): run the eval with REVLOOP_CONFINE=off.
//
//   node noisy-reviewer.mjs --corpus corpus/corpus.json --p 0.7 --q 0.3 [--seed 1] [--cost 0.01]
//
// --cost is what each call reports it cost (`usage.costUsd`), so the eval's cost column counts calls.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

function flags(argv) {
  const out = { seed: '1', cost: '0.01' };
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const k of ['corpus', 'p', 'q'])
    if (out[k] === undefined) throw new Error(`noisy-reviewer: --${k} is required`);
  return { corpus: out.corpus, p: Number(out.p), q: Number(out.q), seed: out.seed, cost: Number(out.cost) };
}

const opts = flags(process.argv.slice(2));
const prompt = readFileSync(0, 'utf8');
const env = process.env;
function git(...args) {
  try {
    return execFileSync('git', ['-C', env.REVLOOP_REPO, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch {
    process.stderr.write(
      'noisy-reviewer: git cannot read the checkout (confined?): run the eval with REVLOOP_CONFINE=off\n',
    );
    process.exit(1);
  }
}
const id = /^eval: case (.+)$/.exec(git('log', '-1', '--format=%s', env.REVLOOP_HEAD).trim())?.[1];
const known = JSON.parse(readFileSync(opts.corpus, 'utf8')).cases.find((c) => c.id === id);
const defects = (known?.defects ?? []).filter((d) => d.file !== undefined && d.line !== undefined);

const call = `${opts.seed}:${id}:${env.REVLOOP_REVIEWER}:${env.REVLOOP_ROUND}:${env.REVLOOP_SAMPLE ?? '0'}`;
const draw = (what) => createHash('sha256').update(`${call}:${what}`).digest().readUInt32BE(0) / 2 ** 32;

// The files this call's diff carries (a chunked change sends each file to one call only).
const inPrompt = new Set([...prompt.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)].map((m) => m[2]));
const findings = defects
  .map((d, i) => ({ d, i }))
  .filter(({ d, i }) => inPrompt.has(d.file) && draw(`true:${i}`) < opts.p)
  .map(({ d }) => ({
    severity: 'MAJOR',
    file: d.file,
    line: d.line,
    endLine: d.endLine ?? d.line,
    claim: d.description,
    failureScenario: `the change brings back the bug: ${d.description}`,
  }));

// The false blocker sits at one place per case (every sample that raises it raises the same claim
// there, so samples agree on it exactly when they agree on a real one): the added line farthest from
// any known defect, if one is more than the eval's window away.
if (draw('false') < opts.q) {
  const spot = falseSpot();
  if (spot)
    findings.push({
      severity: 'MODERATE',
      file: spot.file,
      line: spot.line,
      claim: 'the changed line mishandles an empty input',
      failureScenario: 'an empty string passed here returns undefined instead of an empty result',
    });
}
const usage = { costUsd: opts.cost };
process.stdout.write(JSON.stringify({ verdict: findings.length ? 'findings' : 'pass', findings, usage }));

function falseSpot() {
  const diff = git('diff', '--unified=0', '--no-color', env.REVLOOP_BASE, env.REVLOOP_HEAD);
  let file = null;
  let best = null;
  for (const line of diff.split('\n')) {
    const header = /^\+\+\+ b\/(.+)$/.exec(line);
    if (header) file = header[1];
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!hunk || file === null || !inPrompt.has(file) || file.endsWith('.json')) continue;
    const start = Number(hunk[1]);
    for (let n = start; n < start + Number(hunk[2] ?? 1); n++) {
      const near = defects
        .filter((d) => d.file === file)
        .map((d) => Math.min(Math.abs(n - d.line), Math.abs(n - (d.endLine ?? d.line))));
      const distance = near.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...near);
      if (distance > 3 && (best === null || distance > best.distance)) best = { file, line: n, distance };
    }
  }
  return best;
}
