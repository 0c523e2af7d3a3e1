/**
 * `eval mine` on a real repository made here, then eval of what it proposed;
 * `eval replay` of a kept eval's recorded prompts on another reviewer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFixtureRepo } from '../../src/git/fixture-repo.js';
import { ensureBuilt } from '../sim/cli-support.js';
import { CORPUS, ROOT, reviewerConfig } from './support.js';

beforeAll(() => ensureBuilt(), 600_000);

const revloop = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });

const BUGGY = 'export function last(xs) {\n  return xs[xs.length];\n}\n';
const FIXED = 'export function last(xs) {\n  return xs[xs.length - 1];\n}\n';

describe('revloop eval mine', () => {
  it('proposes a reverted fix with the fixed line as its defect, and a clean change; the proposal evaluates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-mine-'));
    const repo = await createFixtureRepo(join(dir, 'lib'));
    const first = await repo.commit({ 'index.js': BUGGY, 'test.js': 'test\n' }, 'initial');
    await repo.commit({ 'index.js': FIXED, 'test.js': 'test 2\n' }, 'Fix last() off by one');
    await repo.commit({ 'index.js': `${FIXED}export const first = (xs) => xs[0];\n` }, 'Add first()');
    const out = join(dir, 'corpus');
    const r = revloop(['eval', 'mine', '--repo', repo.dir, '--since', first, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/proposed 1 known-bug case\(s\) and 1 clean case\(s\)/);
    const corpus = JSON.parse(readFileSync(join(out, 'corpus.json'), 'utf8'));
    const fix = corpus.cases.find((c: { clean?: boolean }) => !c.clean);
    // The revert touches only the source file (test.js keeps the fix) and points at line 2.
    expect(fix.defects).toEqual([
      {
        file: 'index.js',
        line: 2,
        endLine: 2,
        description: 'reintroduces what "Fix last() off by one" fixed',
        severity: 'MAJOR',
      },
    ]);
    const ev = revloop(['eval', out, '--config', reviewerConfig('oracle', 'oracle.mjs'), '--json'], {
      EVAL_CORPUS: join(out, 'corpus.json'),
    });
    expect(ev.status).toBe(0);
    const card = JSON.parse(ev.stdout).primary;
    expect(card.totals).toMatchObject({ cases: 2, ran: 2 });
    expect(card.reviewers.at(-1).metrics).toMatchObject({ recall: 1, precision: 1, falsePositiveRate: 0 });
  }, 600_000);

  it('mines every language by its extension: a Python fix becomes a case, its test file does not count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-mine-py-'));
    const repo = await createFixtureRepo(join(dir, 'black'));
    const buggy = 'def last(xs):\n    return xs[len(xs)]\n';
    const fixed = 'def last(xs):\n    return xs[len(xs) - 1]\n';
    const first = await repo.commit({ 'src/black/lines.py': buggy, 'tests/test_lines.py': 't\n' }, 'initial');
    await repo.commit(
      { 'src/black/lines.py': fixed, 'tests/test_lines.py': 't2\n' },
      'Fix last() off by one',
    );
    await repo.commit({ 'tests/test_lines.py': 't3\n', 'docs/index.md': 'd\n' }, 'Fix a flaky test');
    const out = join(dir, 'corpus');
    const r = revloop(['eval', 'mine', '--repo', repo.dir, '--since', first, '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const res = JSON.parse(r.stdout);
    // The test-only fix is no case: it changed no source a reviewer should judge.
    expect(res).toMatchObject({ fixes: 1, clean: 0, commits: 2, nothing: null });
    const corpus = JSON.parse(readFileSync(join(out, 'corpus.json'), 'utf8'));
    expect(corpus.cases[0].defects).toEqual([
      {
        file: 'src/black/lines.py',
        line: 2,
        endLine: 2,
        description: 'reintroduces what "Fix last() off by one" fixed',
        severity: 'MAJOR',
      },
    ]);
  }, 600_000);

  it('says what counted as source when nothing qualified, writes nothing, and --source widens it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-mine-none-'));
    const repo = await createFixtureRepo(join(dir, 'site'));
    const first = await repo.commit({ 'pages/a.tmpl': 'a\n' }, 'initial');
    await repo.commit({ 'pages/a.tmpl': 'b\n' }, 'Fix the title');
    const out = join(dir, 'corpus');
    const r = revloop(['eval', 'mine', '--repo', repo.dir, '--since', first, '--out', out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^proposed no case: none of the 1 commit\(s\) after \w+ touched files with a source extension \(.*\.py .*\) outside tests, fixtures, examples and docs; nothing was written\n/,
    );
    expect(r.stdout).toContain('--source GLOB');
    expect(existsSync(join(out, 'corpus.json'))).toBe(false);
    const wide = revloop([
      'eval',
      'mine',
      '--repo',
      repo.dir,
      '--since',
      first,
      '--out',
      out,
      '--source',
      'pages/**',
    ]);
    expect(wide.status).toBe(0);
    expect(wide.stdout).toMatch(/proposed 1 known-bug case\(s\) and 0 clean case\(s\)/);
  }, 600_000);

  it('a --since that names nothing is one line, exit 2', () => {
    const r = revloop([
      'eval',
      'mine',
      '--repo',
      ROOT,
      '--since',
      'no-such-ref-anywhere',
      '--out',
      mkdtempSync(join(tmpdir(), 'm-')),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^revloop: --since no-such-ref-anywhere: /);
  });
});

describe('revloop eval replay', () => {
  it('reports blockers kept, lost and new per run against the recorded verdicts', () => {
    const keep = mkdtempSync(join(tmpdir(), 'revloop-eval-keep-'));
    const env = { EVAL_CORPUS: join(CORPUS, 'corpus.json') };
    const ev = revloop(
      [
        'eval',
        CORPUS,
        '--config',
        reviewerConfig('oracle', 'oracle.mjs'),
        '--keep',
        keep,
        '--ledger',
        `sqlite:${join(keep, 'ledger.db')}`,
        '--json',
      ],
      env,
    );
    expect(ev.status).toBe(0);
    const c = JSON.parse(ev.stdout).primary.cases.find((x: { id: string }) => x.id === 'slugify-1aaea23');
    const caseDir = join(keep, 'side-0', `002-${c.id}`);
    const r = revloop(
      [
        'eval',
        'replay',
        c.runId,
        '--reviewer',
        'oracle',
        '--with',
        reviewerConfig('every-file', 'every-file.mjs'),
        '--repo',
        caseDir,
        '--store',
        `sqlite:${join(keep, 'ledger.db')}`,
        '--json',
      ],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // The oracle blocked on index.js:12; the fixed reviewer blocks on index.js:1 only.
    expect(JSON.parse(r.stdout).runs).toEqual([
      { runId: c.runId, prompts: 1, kept: 0, lost: 1, new: 1, failed: [], missing: 0 },
    ]);
  }, 600_000);
});
