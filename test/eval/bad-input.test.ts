/**
 * Bad input to `revloop eval`: a case whose commits are missing from its
 * bundle, a defect past the end of its file, a corpus failing its schema.
 * Each is one line naming the case and the field; a case that cannot run is
 * listed as not run, the totals say how many ran, and the exit code is 11.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus } from '../../src/eval/corpus-load.js';
import { ensureBuilt } from '../sim/cli-support.js';
import { CORPUS, ROOT, reviewerConfig } from './support.js';

beforeAll(() => ensureBuilt(), 600_000);

const shipped = JSON.parse(readFileSync(join(CORPUS, 'corpus.json'), 'utf8'));

/** A corpus of the first `n` shipped cases, edited by `edit`, with the bundles it needs. */
function corpusWith(edit: (cases: Record<string, unknown>[]) => void, n = 3): string {
  const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-bad-'));
  mkdirSync(join(dir, 'bundles'));
  const cases = structuredClone(shipped.cases.slice(0, n));
  for (const c of cases) copyFileSync(join(CORPUS, c.bundle), join(dir, c.bundle));
  edit(cases);
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ version: 1, cases }));
  return dir;
}

const revloop = (args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVAL_CORPUS: join(CORPUS, 'corpus.json') },
  });

describe('revloop eval on bad input', () => {
  it('a case whose head is not in its bundle, and a defect past the end of its file: listed, not scored, exit 11', () => {
    const dir = corpusWith((cases) => {
      (cases[1] as { head: string }).head = 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef';
      const defects = (cases[2] as { defects: { line: number; endLine: number }[] }).defects;
      (defects[0] as { endLine: number }).endLine = 9999;
    });
    const ids = JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')).cases.map(
      (c: { id: string }) => c.id,
    );
    const r = revloop(['eval', dir, '--config', reviewerConfig('oracle', 'oracle.mjs')]);
    expect(r.status).toBe(11);
    expect(r.stdout).toMatch(/1 of 3 cases ran \(INCOMPLETE: 2 case\(s\) could not run/);
    expect(r.stdout).toContain(
      `not run: case ${ids[1]}: head: commit deadbeefdeadbeefdeadbeefdeadbeefdeadbeef is not in bundle`,
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `not run: case ${ids[2]}: defects\\[0\\]\\.endLine: line 9999 is past the end of index\\.js`,
      ),
    );
    expect(r.stderr).toContain('revloop: eval incomplete: 2 of 3 cases not run');
    const json = JSON.parse(
      revloop(['eval', dir, '--config', reviewerConfig('oracle', 'oracle.mjs'), '--json']).stdout,
    );
    expect(json.primary.complete).toBe(false);
    expect(
      json.primary.cases.filter((c: { ran: boolean }) => !c.ran).map((c: { field: string }) => c.field),
    ).toEqual(['head', 'defects[0].endLine']);
  }, 600_000);

  it('a missing bundle names the case and the field', () => {
    const dir = corpusWith((cases) => {
      (cases[0] as { bundle: string }).bundle = 'bundles/nope.bundle';
    }, 1);
    const r = revloop(['eval', dir, '--config', reviewerConfig('oracle', 'oracle.mjs')]);
    expect(r.status).toBe(11);
    expect(r.stdout).toMatch(/not run: case [\w-]+: bundle: cannot read .*nope\.bundle/);
  }, 600_000);

  it('a corpus failing its schema: one line naming the case and the field, exit 2, nothing run', () => {
    const dir = corpusWith((cases) => {
      (cases[2] as { defects: { line: unknown }[] }).defects[0] = { line: 0 } as never;
    });
    const id = JSON.parse(readFileSync(join(dir, 'corpus.json'), 'utf8')).cases[2].id;
    expect(() => loadCorpus(dir)).toThrow(new RegExp(`cases\\[2\\] \\(id "${id}"\\)\\.defects\\[0\\]`));
    const r = revloop(['eval', dir, '--config', reviewerConfig('oracle', 'oracle.mjs')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`cases[2] (id "${id}").defects[0]`);
    expect(r.stdout).toBe('');
  });

  it('a case with both a repo and a bundle, and a corpus that is not JSON', () => {
    const both = corpusWith((cases) => {
      (cases[0] as { repo: string }).repo = '.';
    }, 1);
    expect(() => loadCorpus(both)).toThrow(
      /cases\[0\] \(id "[\w-]+"\): give exactly one of "repo" and "bundle"/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'revloop-eval-bad-'));
    writeFileSync(join(dir, 'corpus.json'), '{ nope');
    expect(() => loadCorpus(dir)).toThrow(/corpus\.json: not JSON/);
  });

  it('usage errors: no --config, a bad --mode', () => {
    expect(revloop(['eval', CORPUS]).stderr).toMatch(/--config FILE is required/);
    const r = revloop(['eval', CORPUS, '--config', 'x.yaml', '--mode', 'fast']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--mode: "fast" is not review or loop/);
  });
});
