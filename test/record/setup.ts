/**
 * A real repository with a reviewed change, and signed records of it, for
 * the record tests: main (criteria, config listing keys/team.pub, code), a
 * `feature` branch with the change and one fix commit, checked out at the fix.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunReport } from '../../src/core/run-report.js';
import { createGit } from '../../src/git/index.js';
import { sha256 } from '../../src/io/hash.js';
import type { Signer } from '../../src/ports/signer.js';
import { generateKeyPair, loadSigner } from '../../src/record/keys.js';
import { buildStatement, type Statement } from '../../src/record/statement.js';
import { signStatement } from '../../src/record/write.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';
import { sampleReport } from '../report/fixtures.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const MAIN_JS = join(ROOT, 'dist/cli/main.js');

export { ensureBuilt } from '../helpers/build.js';

export interface Fixture {
  repo: TestRepo;
  base: string;
  head: string;
  fix: string;
  criteria: string;
  keysDir: string;
  team: Signer;
  teamPub: string;
  other: Signer;
  otherPub: string;
  report(over?: Partial<RunReport['run']>): RunReport;
  /** The real diff digest of base..sha. */
  diffDigest(sha: string): Promise<string>;
  statement(over?: Partial<RunReport['run']>, finalDiffDigest?: string): Promise<Statement>;
  /** Writes a signed record into a temp file and returns its path. */
  record(statement: Statement, signer?: Signer): string;
}

export async function makeFixture(): Promise<Fixture> {
  const keysDir = mkdtempSync(join(tmpdir(), 'revloop-keys-'));
  const teamFiles = generateKeyPair(join(keysDir, 'team'));
  const otherFiles = generateKeyPair(join(keysDir, 'other'));
  const repo = await makeRepo();
  const criteria = '# Review rules\n1. No lost updates.\n';
  repo.write('REVIEW.md', criteria);
  repo.write(
    'revloop.config.yaml',
    'criteria: REVIEW.md\nreviewers:\n  - { name: correctness, command: [node, r.mjs] }\nkeys:\n  - keys/team.pub\n',
  );
  repo.write('keys/team.pub', readFileSync(teamFiles.publicPath));
  repo.write('src/a.ts', 'export let n = 0;\n');
  const base = repo.commit('base');
  repo.git(['checkout', '-q', '-b', 'feature']);
  repo.write('src/a.ts', 'export let n = 0;\nexport const inc = () => n++;\n');
  const head = repo.commit('change');
  repo.write('src/a.ts', 'export let n = 0;\nexport const inc = () => (n += 1);\n');
  const fix = repo.commit('revloop fix');
  const git = createGit();
  const diffDigest = (sha: string) => git.diffDigest(repo.dir, base, sha);
  const initialDigest = await diffDigest(head);
  const report = (over: Partial<RunReport['run']> = {}): RunReport => {
    const r = sampleReport({
      status: 'completed',
      outcome: 'clear',
      stopReason: 'clear',
      head: fix,
      ...over,
    });
    r.run.snapshot = {
      ...r.run.snapshot,
      repo: repo.dir,
      base,
      head,
      mergeBase: base,
      diffDigest: initialDigest,
      criteriaPath: 'REVIEW.md',
      criteriaDigest: sha256(criteria),
      configPath: 'revloop.config.yaml',
    };
    r.findings = r.findings.filter((f) => f.severity === 'MINOR' || f.refutation || f.settlement);
    return r;
  };
  const recordsDir = mkdtempSync(join(tmpdir(), 'revloop-records-'));
  const team = loadSigner(teamFiles.privatePath);
  let n = 0;
  return {
    repo,
    base,
    head,
    fix,
    criteria,
    keysDir,
    team,
    teamPub: teamFiles.publicPath,
    other: loadSigner(otherFiles.privatePath),
    otherPub: otherFiles.publicPath,
    report,
    diffDigest,
    async statement(over = {}, finalDiffDigest) {
      const r = report(over);
      return buildStatement(r, { finalDiffDigest: finalDiffDigest ?? (await diffDigest(r.run.head)) });
    },
    record(statement, signer) {
      const path = join(recordsDir, `r${++n}.json`);
      mkdirSync(recordsDir, { recursive: true });
      writeFileSync(path, JSON.stringify(signStatement(statement, signer ?? team), null, 2));
      return path;
    },
  };
}

/** Runs the compiled CLI; never throws on a non-zero exit. */
export function cli(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, [MAIN_JS, ...args], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    });
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `git push -q origin REF` in `dir` with hooks running (the test helper's git disables them). */
export function pushRunningHooks(dir: string, ref: string): { code: number; stderr: string } {
  try {
    execFileSync('git', ['push', '-q', 'origin', ref], {
      cwd: dir,
      env: TEST_GIT_ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stderr: string };
    return { code: e.status, stderr: e.stderr };
  }
}
