/**
 * A finding on a file or a line that does not exist at the revision (issue
 * 15, point 15) is the reviewer's malformed reply: the run fails `malformed`,
 * the call is not retried, nothing blocks and nothing reaches the refuter or
 * the fixer. Real repository, real subprocess agents, the real SQLite ledger.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { findingLinesProblem, lineCount } from '../../src/core/finding-lines.js';
import { makeRepo } from '../helpers/git-repo.js';
import {
  baseConfig,
  ensureBuilt,
  FIXED_FILE,
  findings,
  inProcess,
  makeReviewRepo,
  pass,
  raceFinding,
  reposRemovedAfterAll,
  review,
} from './helpers.js';

const repos = reposRemovedAfterAll();
beforeAll(() => ensureBuilt(), 120_000);

// HEAD_FILE (src/calc.js at the change) has 15 lines.
const cases: [string, Record<string, unknown>, RegExp][] = [
  [
    'a file that does not exist',
    { file: 'src/nope.js' },
    /findings\.0\.file: src\/nope\.js is not a file at/,
  ],
  ['a directory', { file: 'src' }, /findings\.0\.file: src is not a file/],
  [
    'a line past the end',
    { line: 40, endLine: 41 },
    /findings\.0\.line: line 40 is past the end of src\/calc\.js \(15 lines/,
  ],
  ['an endLine past the end', { line: 14, endLine: 16 }, /findings\.0\.endLine: line 16 is past the end/],
];

describe('a finding the revision does not have', () => {
  it.each(cases)(
    '%s: the run fails malformed, not retried, nothing sent to refuter or fixer',
    async (_n, at, detail) => {
      const r = await makeReviewRepo({ config: (a) => baseConfig(a, { refuter: a, fixer: a }) });
      repos.push(r);
      r.plan({
        reviewer: [{ reply: findings(raceFinding(at)) }],
        refuter: [{ reply: { decision: 'upheld', reason: 'real' } }],
        fixer: [{ write: { 'src/calc.js': FIXED_FILE }, reply: { disputed: [] } }],
      });
      const p = await inProcess(r.dir);
      try {
        const { report } = await review(p, r.dir);
        expect(report.run).toMatchObject({ status: 'failed', outcome: null, reason: 'malformed' });
        expect(report.run.detail).toMatch(detail);
        expect(report.findings).toEqual([]);
        expect(report.attempts.map((a) => `${a.role}:${a.class}`)).toEqual(['reviewer:malformed']);
        expect(r.counts()).toEqual({ reviewer: 1 });
        expect(report.run.head).toBe(r.head);
      } finally {
        await p.close();
      }
    },
  );

  it('the last line of the file, and a file the change does not touch, are accepted', async () => {
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a),
      files: { 'README.md': 'one line, no newline' },
    });
    repos.push(r);
    r.plan({
      reviewer: [
        {
          reply: findings(
            raceFinding({ line: 15, endLine: 15 }),
            raceFinding({ file: 'README.md', line: 1, endLine: 1 }),
          ),
        },
      ],
    });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run, report.run.detail ?? '').toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(report.findings).toHaveLength(2);
    } finally {
      await p.close();
    }
  });

  it('a later round checks against its own revision: a line the fix removed is malformed there', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a, { fixer: a }) });
    repos.push(r);
    const short = 'export const x = 1;\n';
    r.plan({
      reviewer: [
        { round: 1, reply: findings(raceFinding()) },
        { round: 2, reply: findings(raceFinding()) },
        { reply: pass },
      ],
      fixer: [{ write: { 'src/calc.js': short }, reply: { disputed: [] } }],
    });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run).toMatchObject({ status: 'failed', reason: 'malformed' });
      expect(report.run.detail).toMatch(/line 11 is past the end of src\/calc\.js \(1 line at/);
      expect(report.findings.map((f) => f.round)).toEqual([1]);
    } finally {
      await p.close();
    }
  });
});

describe('a finding path as a reviewer writes it', () => {
  it('./src/calc.js is stored once, as src/calc.js: the path the diff and every output use', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    r.plan({ reviewer: [{ reply: findings(raceFinding({ file: './src/calc.js' })) }] });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run, report.run.detail ?? '').toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(report.findings.map((f) => f.reported.file)).toEqual(['src/calc.js']);
    } finally {
      await p.close();
    }
  });
});

describe('a non-ASCII path in prompts', () => {
  it('the prompt carries src/ünï côde/naïve file.rs unquoted, and a finding citing it so is recorded', async () => {
    const path = 'src/ünï côde/naïve file.rs';
    const r = await makeReviewRepo({
      config: (a) => baseConfig(a),
      change: { [path]: 'fn main() {\n    let total = 0;\n}\n' },
    });
    repos.push(r);
    const onIt = raceFinding({ file: path, line: 2, endLine: undefined });
    // Only a prompt that shows the path as the reviewer will cite it gets the finding.
    r.plan({ reviewer: [{ when: `+++ b/${path}`, reply: findings(onIt) }, { reply: pass }] });
    const p = await inProcess(r.dir);
    try {
      const { report } = await review(p, r.dir);
      expect(report.run, report.run.detail ?? '').toMatchObject({ status: 'completed', outcome: 'findings' });
      expect(report.findings.map((f) => f.reported.file)).toEqual([path]);
    } finally {
      await p.close();
    }
  });
});

describe('a finding on a submodule the change bumps', () => {
  it('is a valid finding on the path (line 1: the whole of it), recorded, not a malformed reply', async () => {
    const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
    repos.push(r);
    // A second repository, added on main as a real submodule, then bumped on the branch.
    const lib = await makeRepo();
    try {
      lib.write('lib.c', 'int v = 1;\n');
      lib.commit('lib one');
      r.repo.git(['checkout', '-q', 'main']);
      r.repo.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib.dir, 'vendor/lib']);
      r.repo.commit('add the lib submodule');
      r.repo.git(['checkout', '-q', 'topic']);
      r.repo.git(['merge', '-q', '--no-edit', 'main']);
      lib.write('lib.c', 'int v = 2;\n');
      const bumped = lib.commit('lib two');
      r.repo.git(['-C', 'vendor/lib', 'fetch', '-q', 'origin']);
      r.repo.git(['-C', 'vendor/lib', 'checkout', '-q', bumped]);
      r.repo.commit('bump the lib');
      expect(r.repo.git(['diff', '--name-only', 'main...topic'])).toMatch(/^vendor\/lib$/m);
      const onSub = raceFinding({
        file: 'vendor/lib',
        line: 1,
        endLine: undefined,
        claim: 'the bump pulls in a lib whose deposit reads shared state without a lock',
      });
      r.plan({ reviewer: [{ reply: findings(onSub) }] });
      const p = await inProcess(r.dir);
      try {
        const { report } = await review(p, r.dir);
        expect(report.run, report.run.detail ?? '').toMatchObject({
          status: 'completed',
          outcome: 'findings',
        });
        expect(report.findings.map((f) => [f.reported.file, f.reported.line])).toEqual([['vendor/lib', 1]]);
      } finally {
        await p.close();
      }
    } finally {
      await lib.cleanup();
    }
  });
});

describe('findingLinesProblem (pure)', () => {
  const lines = (f: string) => ({ 'a.js': 3, 'empty.txt': 0 })[f] ?? null;
  it('counts a last line without a newline, and lets an empty file have line 1', () => {
    expect(lineCount(Buffer.from('a\nb\nc'))).toBe(3);
    expect(lineCount(Buffer.from('a\nb\nc\n'))).toBe(3);
    expect(lineCount(Buffer.from(''))).toBe(0);
    expect(findingLinesProblem([{ file: 'a.js', line: 3, endLine: 3 }], lines, 'f'.repeat(40))).toBeNull();
    expect(findingLinesProblem([{ file: 'empty.txt', line: 1 }], lines, 'f'.repeat(40))).toBeNull();
    expect(findingLinesProblem([{ file: 'empty.txt', line: 2 }], lines, 'f'.repeat(40))).toMatch(/0 lines/);
    expect(findingLinesProblem([{ file: 'a.js', line: 2, endLine: 1 }], lines, 'f'.repeat(40))).toMatch(
      /endLine: 1 is before line 2/,
    );
    expect(
      findingLinesProblem(
        [
          { file: 'a.js', line: 1 },
          { file: 'b.js', line: 1 },
        ],
        lines,
        'f'.repeat(40),
      ),
    ).toMatch(/^\$\.findings\.1\.file: b\.js is not a file/);
  });
});
