/**
 * `revloop eval import --format swe-prbench`: a dataset directory in
 * SWE-PRBench's published layout and field names (prs.jsonl beside
 * annotations/{task_id}_human.json), its repository a real clone of a fixture
 * bundle with two of the three PRs' heads fetched; the converted corpus checked
 * against the shipped JSON Schema and measured by `revloop eval` with a real
 * subprocess reviewer and judge. Nothing touches the network.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus } from '../../src/eval/corpus-load.js';
import { ensureBuilt } from '../sim/cli-support.js';
import { FIXTURES, ROOT, reviewerConfig, revloop } from './support.js';

beforeAll(() => ensureBuilt(), 600_000);

const FIXTURE = join(FIXTURES, 'swe-prbench');
const PRS = join(FIXTURE, 'dataset', 'prs.jsonl');
// The fixture bundle's commits (built with a fixed author and date: README.md beside it).
const MAIN = 'f878ea1061e7a2d04798cf3e07397e67394f68fe';
const PR12 = 'd7bd7a85c3f70c2b0decb1bb0a462f29ce45f6e0';
const PR13 = 'c345410781b47f380fa41b1b3c412858b30bf31b';
const PR14 = '180ff8f68576d412145637b354c18f3e07c94432';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/**
 * The clone a user makes of "GitHub" (a mirror of the fixture bundle, served
 * over file:// so only what is asked for is sent): `git clone`, then the heads
 * of PRs 12 and 14 fetched; 13's is not, so its commits are not in the clone.
 */
function reposDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-swepr-repos-'));
  const upstream = join(dir, 'upstream.git');
  git(dir, 'clone', '-q', '--mirror', join(FIXTURE, 'acme-ledger.bundle'), upstream);
  const repo = join(dir, 'acme', 'ledger');
  git(dir, 'clone', '-q', '-b', 'main', `file://${upstream}`, repo);
  for (const n of [12, 14]) git(repo, 'fetch', '-q', 'origin', `+refs/pull/${n}/head:refs/pull/${n}/head`);
  return dir;
}

/** A copy of the fixture's dataset/ to break one file of. */
function datasetCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'revloop-swepr-data-')), 'dataset');
  cpSync(join(FIXTURE, 'dataset'), dir, { recursive: true });
  return dir;
}

const importArgs = (prs: string, out: string, ...more: string[]) => [
  'eval',
  'import',
  '--format',
  'swe-prbench',
  prs,
  '--out',
  out,
  ...more,
];

describe('revloop eval import --format swe-prbench', () => {
  it('converts the PRs whose commits the clone has, with their human ground truth; the rest not present; exit 11', () => {
    const repos = reposDir();
    const out = mkdtempSync(join(tmpdir(), 'revloop-swepr-out-'));
    const r = revloop(importArgs(PRS, out, '--repos', repos));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(11);
    expect(r.stdout).toContain(`imported 2 of 3 pull request(s) into ${join(out, 'corpus.json')}`);
    expect(r.stdout).toContain(
      `not present: case ledger__13: repository not present: commit ${PR13} is not in ${join(repos, 'acme', 'ledger')} (git fetch origin +refs/pull/13/head:refs/pull/13/head)`,
    );
    expect(r.stdout).toContain('4 of its defects are prose: measure it with a judge:');

    // The written file satisfies the shipped JSON Schema, not only the loader.
    const written = JSON.parse(readFileSync(join(out, 'corpus.json'), 'utf8'));
    const schema = JSON.parse(readFileSync(join(ROOT, 'schema/revloop.corpus.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);

    const { corpus } = loadCorpus(out);
    expect(corpus.match).toBe('position');
    expect(corpus.cases).toEqual([
      {
        id: 'ledger__12',
        repo: expect.stringMatching(/acme\/ledger$/),
        base: MAIN,
        head: PR12,
        upstream: 'https://github.com/acme/ledger/pull/12',
        // substantive_comment_ids c_1, c_3, c_4, c_5: not c_2 (a reply) nor c_6 (initiating, but praise).
        defects: [
          {
            file: 'ledger.py',
            line: 4,
            endLine: 4,
            description:
              'Comparing e.date < since silently skips entries dated exactly on the boundary day, which callers expect to include.',
            severity: 'MAJOR',
          },
          {
            file: 'ledger.py',
            description:
              'round(total) changes the return type for float amounts and drops cents; callers sum money here.',
            severity: 'MAJOR',
          },
          // Line 40 is not in the head's 7-line ledger.py: kept as prose of the file.
          {
            file: 'ledger.py',
            description:
              'This used to be the only place that guarded against a missing amount attribute on old entries.',
            severity: 'MAJOR',
          },
          // legacy.py is deleted at the head: kept as prose, the file named in the description.
          {
            description:
              '(on legacy.py, not in the head) old_balance is still imported by the reports module, removing legacy.py breaks that import at startup.',
            severity: 'MAJOR',
          },
        ],
      },
      {
        id: 'ledger__14',
        repo: expect.stringMatching(/acme\/ledger$/),
        base: PR12,
        head: PR14,
        upstream: 'https://github.com/acme/ledger/pull/14',
        // No substantive_comment_ids: the initiating comments, as the benchmark's loader takes them.
        defects: [
          {
            file: 'ledger.py',
            line: 11,
            endLine: 11,
            description:
              'average() divides by len(entries) and raises ZeroDivisionError for an account with no entries yet.',
            severity: 'MAJOR',
          },
          {
            file: 'ledger.py',
            description:
              'balance() is now computed twice for every average() call from the dashboard, which doubles the work on large accounts.',
            severity: 'MAJOR',
          },
        ],
      },
    ]);
    expect(JSON.parse(readFileSync(join(out, 'not-present.json'), 'utf8'))).toEqual([
      {
        id: 'ledger__13',
        url: 'https://github.com/acme/ledger/pull/13',
        problem: expect.stringContaining(`commit ${PR13} is not in`),
      },
    ]);

    // The converted corpus runs: one finding on line 1 of each changed file; the judge says yes to every pair it is asked.
    const cfg = reviewerConfig(
      'everyfile',
      'every-file.mjs',
      `judge:\n  command: [node, ${join(FIXTURES, 'judge.mjs')}]\n  env: [JUDGE_SAYS, JUDGE_LOG]\n`,
    );
    const log = join(mkdtempSync(join(tmpdir(), 'revloop-swepr-judge-')), 'calls');
    const e = revloop(['eval', out, '--config', cfg, '--json'], { JUDGE_SAYS: 'yes', JUDGE_LOG: log });
    expect(e.status, e.stderr).toBe(0);
    const res = JSON.parse(e.stdout);
    expect(res.primary.totals).toMatchObject({ cases: 2, ran: 2 });
    const all = res.primary.reviewers.find((x: { reviewer: string }) => x.reviewer === '(all reviewers)');
    // ledger.py:1 on PR 12 is within the window of c_1 (line 4), matched by position; on PR 14 it is
    // 10 lines from c_1 (line 11), so only the judge matches it, to the prose c_3 of the same file.
    expect(all.tally).toMatchObject({ defects: 6, matchedDefects: 2, findings: 2, matchedFindings: 2 });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
  }, 240_000);

  it('without --repos every PR is not present and no corpus is written; a rerun with every head fetched leaves no stale list', () => {
    const out = mkdtempSync(join(tmpdir(), 'revloop-swepr-none-'));
    // An earlier import into the same directory must not read as this one's corpus.
    writeFileSync(join(out, 'corpus.json'), '{"version":1,"cases":[]}\n');
    const r = revloop(importArgs(PRS, out));
    expect(r.status).toBe(11);
    expect(r.stdout).toContain('imported none of 3 pull request(s): no corpus written');
    expect(r.stdout).toContain('not present: case ledger__12: repository not present: no --repos DIR given');
    expect(existsSync(join(out, 'corpus.json'))).toBe(false);
    expect(existsSync(join(out, 'not-present.json'))).toBe(true);

    const repos = reposDir();
    git(join(repos, 'acme', 'ledger'), 'fetch', '-q', 'origin', '+refs/pull/13/head:refs/pull/13/head');
    const again = revloop(importArgs(PRS, out, '--repos', repos));
    expect(again.status, again.stdout).toBe(0);
    expect(again.stdout).toContain('imported 3 of 3 pull request(s)');
    expect(existsSync(join(out, 'not-present.json'))).toBe(false);
  });

  it('a prs.jsonl line not in the published shape: one line naming the file, line and field, exit 2, nothing written', () => {
    const data = datasetCopy();
    const lines = readFileSync(join(data, 'prs.jsonl'), 'utf8').split('\n');
    const second = JSON.parse(lines[1] as string);
    second.base_commit = 'main';
    lines[1] = JSON.stringify(second);
    writeFileSync(join(data, 'prs.jsonl'), lines.join('\n'));
    const out = join(data, '..', 'out');
    const r = revloop(importArgs(join(data, 'prs.jsonl'), out, '--repos', reposDir()));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${join(data, 'prs.jsonl')}: line 2: .base_commit: a 40-hex commit id`);
    expect(existsSync(out)).toBe(false);
  });

  it('a PR whose annotations file is missing: one line naming the file, the PR and its line, exit 2, nothing written', () => {
    const data = datasetCopy();
    rmSync(join(data, 'annotations', 'ledger__14_human.json'));
    const out = join(data, '..', 'out');
    const r = revloop(importArgs(join(data, 'prs.jsonl'), out, '--repos', reposDir()));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `${join(data, 'annotations', 'ledger__14_human.json')}: no such file (the annotations of ${join(data, 'prs.jsonl')} line 3, task ledger__14)`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('an annotations file not in the published shape (a severity, which none has) names its field, exit 2', () => {
    const data = datasetCopy();
    const file = join(data, 'annotations', 'ledger__12_human.json');
    const a = JSON.parse(readFileSync(file, 'utf8'));
    a.comments[2].severity = 'High';
    writeFileSync(file, JSON.stringify(a));
    const r = revloop(importArgs(join(data, 'prs.jsonl'), join(data, '..', 'out')));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `${file}: .comments[2].severity: the published files carry no severity (null)`,
    );
  });

  it('--split: only the PRs of the published split (eval_100.json or its task-id list); a split naming a task no prs.jsonl holds is exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-swepr-split-'));
    const repos = reposDir();
    // evals/eval_100.json's shape: a list of records with a task_id (the harness's extract script reads it so).
    const json = join(dir, 'eval_2.json');
    writeFileSync(
      json,
      JSON.stringify([{ task_id: 'ledger__14', repo: 'acme/ledger' }, { task_id: 'ledger__12' }]),
    );
    const r = revloop(importArgs(PRS, join(dir, 'a'), '--repos', repos, '--split', json));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('imported 2 of 2 pull request(s)');
    const ids = (file: string) =>
      JSON.parse(readFileSync(file, 'utf8')).cases.map((c: { id: string }) => c.id);
    // The prs.jsonl order, not the split's.
    expect(ids(join(dir, 'a', 'corpus.json'))).toEqual(['ledger__12', 'ledger__14']);
    // The harness's eval_100_task_ids.txt: one id a line.
    const txt = join(dir, 'ids.txt');
    writeFileSync(txt, 'ledger__14\n\n');
    const t = revloop(importArgs(PRS, join(dir, 'b'), '--repos', repos, '--split', txt));
    expect(t.status, t.stderr).toBe(0);
    expect(ids(join(dir, 'b', 'corpus.json'))).toEqual(['ledger__14']);

    writeFileSync(json, JSON.stringify([{ task_id: 'ledger__12' }, { task_id: 'dask__12221' }]));
    const bad = revloop(importArgs(PRS, join(dir, 'c'), '--repos', repos, '--split', json));
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([
      `revloop: ${json}: names 1 task(s) no given prs.jsonl holds (first: dask__12221); a split of another dataset revision?`,
    ]);
    expect(existsSync(join(dir, 'c'))).toBe(false);
    writeFileSync(json, '{"task_id": "ledger__12"}');
    const shape = revloop(importArgs(PRS, join(dir, 'd'), '--split', json));
    expect(shape.status).toBe(2);
    expect(shape.stderr).toContain(`${json}: a split is a JSON list of records with a "task_id"`);
    const martian = revloop([
      'eval',
      'import',
      '--format',
      'martian',
      PRS,
      '--out',
      join(dir, 'e'),
      '--split',
      json,
    ]);
    expect(martian.status).toBe(2);
    expect(martian.stderr).toContain('--split is for --format swe-prbench');
  });
});
