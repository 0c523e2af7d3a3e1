/**
 * Secrets never reach an output. A reviewer talked into quoting the job's
 * token (the change's author steers what a model reads) puts it in a
 * finding; nothing revloop keeps or prints may hold it: not the ledger's
 * bytes, not the signed record, not a summary or any export format. Real
 * CLI, real repository, a real command reviewer that reads the text it
 * echoes from a file (the reviewers' environment is scrubbed).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS } from '../../src/report/formats.js';
import {
  baseConfig,
  type CliResult,
  ensureBuilt,
  findings,
  makeReviewRepo,
  type ReviewRepo,
  raceFinding,
  runCli,
  testEnv,
} from '../loop/helpers.js';

// The job's token, shaped like no well-known token: only the job's environment names it.
const JOB_TOKEN = 'v1.9f3c0a7e5b2d4c6e8a1b3d5f7e9c0a2b';
// Shaped like well-known tokens, in no environment: their shape alone names them.
const SHAPED = [
  `ghp_${'A1b2C3d4E5'.repeat(3)}xyz123`,
  `sk-ant-api03-${'Zz09_-'.repeat(6)}`,
  'AKIAIOSFODNN7EXAMPLE',
  `glpat-${'x1Y2z3'.repeat(4)}`,
  `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${'s1G_n-'.repeat(4)}`,
];
const SECRETS = [JOB_TOKEN, ...SHAPED];

const leaky = raceFinding({
  claim: `deposit loses updates; the CI token ${JOB_TOKEN} is readable too`,
  failureScenario: `with ${SHAPED[0]} and ${SHAPED[1]} anyone can push`,
  violatedClause: `keys such as ${SHAPED[2]} or ${SHAPED[3]}`,
  missedBecause: `session ${SHAPED[4]}`,
});

/** Every file under a directory, with its bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? filesUnder(p) : [{ path: p, bytes: readFileSync(p) }];
  });
}

function expectNoSecret(where: string, text: string | Buffer) {
  for (const s of SECRETS) expect(text.includes(s), `${where} holds ${s.slice(0, 12)}…`).toBe(false);
}

describe('no output holds a secret a reviewer quoted', () => {
  let r: ReviewRepo;
  let reviewed: CliResult;
  let runId = '';
  const env = testEnv({ GITHUB_TOKEN: JOB_TOKEN });
  beforeAll(async () => {
    ensureBuilt();
    r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    r.plan({ reviewer: [{ reply: findings(leaky) }] });
    reviewed = await runCli(['review', '--head', 'topic'], { cwd: r.dir, env });
    runId = /revloop run (\S+):/.exec(reviewed.stdout)?.[1] ?? '';
  }, 120_000);
  afterAll(async () => {
    await r?.cleanup();
  });

  it('the review summary, and every byte revloop keeps (ledger, prompts, records)', () => {
    expect(runId, reviewed.stderr + reviewed.stdout).not.toBe('');
    expect(reviewed.stdout).toContain('[redacted]');
    expectNoSecret('review stdout', reviewed.stdout + reviewed.stderr);
    const kept = filesUnder(join(r.dir, '.revloop'));
    expect(kept.some((f) => f.path.includes('records'))).toBe(true);
    for (const f of kept) expectNoSecret(f.path, f.bytes);
  });

  it('the signed record, decoded', () => {
    const records = filesUnder(join(r.dir, '.revloop', 'records'));
    expect(records.length).toBeGreaterThan(0);
    for (const f of records) {
      const envelope = JSON.parse(f.bytes.toString('utf8')) as { payload: string };
      const statement = Buffer.from(envelope.payload, 'base64').toString('utf8');
      expect(statement).toContain('[redacted]');
      expectNoSecret(`${f.path} (payload)`, statement);
    }
  });

  it.each([...EXPORT_FORMATS])('export --format %s', async (format) => {
    const out = await runCli(['export', runId, '--format', format], { cwd: r.dir, env });
    expect(out.code, out.stderr).toBe(0);
    expectNoSecret(`export ${format}`, out.stdout);
  });

  it('status, as text and as JSON', async () => {
    for (const args of [['status', runId], ['status', runId, '--json'], ['status']]) {
      const out = await runCli(args, { cwd: r.dir, env });
      expect(out.code, out.stderr).toBe(0);
      expectNoSecret(args.join(' '), out.stdout);
    }
  });
});

describe('outputs are redacted again with the secrets of the job that prints them', () => {
  it('a ledger written without knowing a secret exports without it', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    try {
      const text = 'the deploy credential q9W8e7R6t5Y4u3I2 is printed in the log';
      r.plan({ reviewer: [{ reply: findings(raceFinding({ claim: text })) }] });
      // The reviewing job does not hold the credential: its ledger keeps the text as said.
      const reviewed = await runCli(['review', '--head', 'topic'], { cwd: r.dir });
      const runId = /revloop run (\S+):/.exec(reviewed.stdout)?.[1] ?? '';
      expect(runId, reviewed.stderr).not.toBe('');
      const rounds = await runCli(['export', runId, '--format', 'rounds'], { cwd: r.dir });
      expect(rounds.stdout).toContain('q9W8e7R6t5Y4u3I2');
      // A job that holds it prints none of it, in any format.
      const env = testEnv({ DEPLOY_PASSWORD: 'q9W8e7R6t5Y4u3I2' });
      for (const format of EXPORT_FORMATS) {
        const out = await runCli(['export', runId, '--format', format], { cwd: r.dir, env });
        expect(out.code, out.stderr).toBe(0);
        expect(out.stdout, format).not.toContain('q9W8e7R6t5Y4u3I2');
      }
    } finally {
      await r.cleanup();
    }
  }, 120_000);
});
