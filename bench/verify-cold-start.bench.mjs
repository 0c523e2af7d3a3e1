// Cold start of `revloop verify` on a valid record against `node -e 0`, both
// measured in this run, interleaved so machine noise hits both alike.
// Target: median verify <= 2x median node startup.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(join(root, 'dist', p));
const RUNS = 21;

export default async function () {
  const { createGit } = await dist('git/index.js');
  const { generateKeyPair, loadSigner } = await dist('record/keys.js');
  const { buildStatement } = await dist('record/statement.js');
  const { signStatement, writeRecord } = await dist('record/write.js');
  const { sha256 } = await dist('io/hash.js');

  const dir = mkdtempSync(join(tmpdir(), 'revloop-bench-verify-'));
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@example.com',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@example.com',
  };
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
  try {
    git('init', '-q', '--initial-branch=main');
    const keys = generateKeyPair(join(dir, 'keys', 'team'));
    writeFileSync(join(dir, 'REVIEW.md'), '# rules\n');
    writeFileSync(
      join(dir, 'revloop.config.yaml'),
      'reviewers: [{ name: a, command: [x] }]\nkeys: [keys/team.pub]\n',
    );
    writeFileSync(join(dir, 'a.ts'), 'export const a = 1;\n');
    git('add', 'REVIEW.md', 'revloop.config.yaml', 'a.ts', 'keys/team.pub');
    git('commit', '-q', '-m', 'base');
    const base = git('rev-parse', 'HEAD');
    writeFileSync(join(dir, 'a.ts'), 'export const a = 2;\n');
    git('commit', '-q', '-am', 'change');
    const head = git('rev-parse', 'HEAD');
    const finalDiffDigest = await createGit().diffDigest(dir, base, head);
    const snapshot = {
      repo: dir,
      change: 'bench',
      base,
      head,
      headRef: null,
      configFrom: 'base',
      settlementsDigest: '',
      mergeBase: base,
      diffDigest: finalDiffDigest,
      criteriaPath: 'REVIEW.md',
      criteriaDigest: sha256(readFileSync(join(dir, 'REVIEW.md'))),
      configDigest: '',
      reviewers: [],
      refuter: null,
      fixer: null,
      checks: [],
      protectedPaths: [],
      configPath: 'revloop.config.yaml',
      policy: { requireScenario: true, scopeLock: true, stopWindow: 2, shrinkRatio: 0.2 },
      budgets: { rounds: 1, wallSeconds: 60, costUsd: 1 },
      callSeconds: 60,
      retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      controllerVersion: 'bench',
    };
    const run = {
      id: 'bench',
      admissionKey: '',
      changeKey: 'bench',
      repo: dir,
      snapshotKey: '',
      snapshot,
      status: 'completed',
      outcome: 'clear',
      stopReason: 'clear',
      reason: null,
      detail: null,
      head,
      roundsDone: 1,
      costUsd: 0,
      fencingToken: 1,
      leaseOwner: null,
      leaseExpiresAt: null,
      recordPath: null,
      createdAt: 0,
      updatedAt: 0,
      endedAt: 0,
    };
    const report = {
      run,
      rounds: [{ runId: 'bench', round: 1, head, startedAt: 0 }],
      stages: [],
      findings: [],
      verdicts: [],
      attempts: [],
      events: [],
    };
    const record = join(dir, 'record.json');
    writeRecord(
      signStatement(buildStatement(report, { finalDiffDigest }), loadSigner(keys.privatePath)),
      record,
    );

    const main = join(root, 'dist/cli/main.js');
    const cases = {
      node: [process.execPath, ['-e', '0']],
      verify: [process.execPath, [main, 'verify', record, '--repo', dir]],
      'verify --key': [process.execPath, [main, 'verify', record, '--repo', dir, '--key', keys.publicPath]],
    };
    const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < RUNS + 1; i++) {
      for (const [name, [cmd, args]] of Object.entries(cases)) {
        const t0 = process.hrtime.bigint();
        const r = spawnSync(cmd, args, { cwd: dir, env, stdio: 'ignore' });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (r.status !== 0) throw new Error(`${name} exited ${r.status}`);
        if (i > 0) times[name].push(ms); // the first round warms the page cache
      }
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    const ratio = m.verify / m.node;
    const ratioKey = m['verify --key'] / m.node;
    return {
      name: 'verify cold start',
      target: 'median `revloop verify` <= 2x median `node -e 0`',
      pass: ratio <= 2,
      lines: [
        `node -e 0:            median ${m.node.toFixed(1)} ms (${RUNS} runs)`,
        `verify (config keys): median ${m.verify.toFixed(1)} ms  ratio ${ratio.toFixed(2)}x`,
        `verify --key:         median ${m['verify --key'].toFixed(1)} ms  ratio ${ratioKey.toFixed(2)}x`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
