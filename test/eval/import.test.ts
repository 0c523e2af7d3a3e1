/**
 * `revloop eval import`: a file in the shape of Martian's published golden
 * comments, converted with one PR's repository supplied under --repos (a
 * real git clone with GitHub's refs/pull/N/head) and one not; then the
 * converted corpus measured with a judge. Nothing touches the network.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus } from '../../src/eval/corpus-load.js';
import { ensureBuilt } from '../sim/cli-support.js';
import { FIXTURES, revloop } from './support.js';

beforeAll(() => ensureBuilt(), 600_000);

const GOLDEN = join(FIXTURES, 'martian', 'golden_comments.json');

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).trim();

/** A clone of acme/widget as a user makes it: main, and the PR's head fetched to refs/pull/7/head. */
function reposDir(): { dir: string; base: string; head: string } {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-import-repos-'));
  const repo = join(dir, 'acme', 'widget');
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(
    join(repo, 'total.js'),
    'export const total = (xs) => {\n  let s = 0;\n  for (const x of xs) s += x;\n  return s;\n};\n',
  );
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'total');
  const base = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'checkout', '-qb', 'pr');
  writeFileSync(
    join(repo, 'total.js'),
    'export const total = (xs) => {\n  let s = xs[0];\n  for (const x of xs) s += x;\n  return s;\n};\n',
  );
  git(repo, 'commit', '-qam', 'one pass');
  const head = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'update-ref', 'refs/pull/7/head', head);
  git(repo, 'checkout', '-q', 'main');
  git(repo, 'branch', '-qD', 'pr');
  return { dir, base, head };
}

describe('revloop eval import --format martian', () => {
  it('converts the PRs whose repositories are supplied; lists the rest as not present; exit 11', () => {
    const repos = reposDir();
    const out = mkdtempSync(join(tmpdir(), 'revloop-import-out-'));
    const r = revloop(['eval', 'import', '--format', 'martian', GOLDEN, '--out', out, '--repos', repos.dir]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(11);
    expect(r.stdout).toContain(`imported 1 of 2 pull request(s) into ${join(out, 'corpus.json')}`);
    expect(r.stdout).toContain(
      `not present: case acme-gone-3: repository not present: no clone at ${join(repos.dir, 'acme', 'gone')}`,
    );
    const { corpus } = loadCorpus(out);
    expect(corpus.match).toBe('judge');
    expect(corpus.cases).toEqual([
      {
        id: 'acme-widget-7',
        repo: expect.stringMatching(/acme\/widget$/),
        base: repos.base,
        head: repos.head,
        upstream: 'https://github.com/acme/widget/pull/7',
        defects: [
          {
            description:
              'total() starts from the first element and then adds every element, so the first item is counted twice.',
            severity: 'MAJOR',
          },
          {
            description: 'An empty cart now returns undefined instead of 0 when the list is empty.',
            severity: 'MINOR',
          },
        ],
      },
    ]);
    expect(JSON.parse(readFileSync(join(out, 'not-present.json'), 'utf8'))).toEqual([
      {
        id: 'acme-gone-3',
        url: 'https://github.com/acme/gone/pull/3',
        problem: expect.stringContaining('repository not present'),
      },
    ]);

    // The converted corpus runs, its prose defects decided by a judge.
    const cfgDir = mkdtempSync(join(tmpdir(), 'revloop-import-cfg-'));
    writeFileSync(join(cfgDir, 'criteria.md'), '# criteria\n');
    writeFileSync(
      join(cfgDir, 'eval.yaml'),
      `criteria: criteria.md\nreviewers:\n  - name: everyfile\n    command: [node, ${join(FIXTURES, 'every-file.mjs')}]\n    env: [EVAL_LINE]\nbudgets: { rounds: 1, wallSeconds: 900, costUsd: 1 }\njudge:\n  command: [node, ${join(FIXTURES, 'judge.mjs')}]\n  env: [JUDGE_SAYS, JUDGE_LOG]\n`,
    );
    const e = revloop(['eval', out, '--config', join(cfgDir, 'eval.yaml'), '--json'], { JUDGE_SAYS: 'yes' });
    expect(e.status, e.stderr).toBe(0);
    const res = JSON.parse(e.stdout);
    expect(res.primary.totals).toMatchObject({ cases: 1, ran: 1 });
    // One finding (line 1 of total.js) judged against two defects: one match, one defect missed.
    const all = res.primary.reviewers.find((x: { reviewer: string }) => x.reviewer === '(all reviewers)');
    expect(all.tally).toMatchObject({ defects: 2, matchedDefects: 1, findings: 1, matchedFindings: 1 });
  }, 240_000);

  it('without --repos every PR is not present and no corpus is written', () => {
    const out = mkdtempSync(join(tmpdir(), 'revloop-import-none-'));
    const r = revloop(['eval', 'import', '--format', 'martian', GOLDEN, '--out', out]);
    expect(r.status).toBe(11);
    expect(r.stdout).toContain('imported none of 2 pull request(s): no corpus written');
    expect(r.stdout).toContain(
      'not present: case acme-widget-7: repository not present: no --repos DIR given',
    );
  });

  it('a file that is not in the published shape: one line naming the file and the field, exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-import-bad-'));
    const bad = JSON.parse(readFileSync(GOLDEN, 'utf8'));
    bad[1].comments[0].severity = 'Huge';
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
    const r = revloop([
      'eval',
      'import',
      '--format',
      'martian',
      join(dir, 'bad.json'),
      '--out',
      join(dir, 'out'),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${join(dir, 'bad.json')}: [1].comments[0].severity: `);
  });
});
