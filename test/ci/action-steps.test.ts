/**
 * action.yml under the runner's own shell (issue 15, point 8): every `run:`
 * step executed as GitHub runs `shell: bash` (`bash --noprofile --norc -eo
 * pipefail FILE`, errexit on), with `${{ }}` evaluated and the runner's
 * files, against the real revloop (dist/cli/main.js) on a real repository.
 * docs/ci.md promises: a summary, the outputs `ok`/`code`/`run-id` and an
 * `::error` on refusal, and the step failing with verify's exit code; with
 * `review: true` the review's exit code is not the gate, verify is.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseConfig,
  CLI,
  ensureBuilt,
  findings,
  makeReviewRepo,
  pass,
  type ReviewRepo,
  ROOT,
  raceFinding,
  runCli,
  testEnv,
} from '../loop/helpers.js';
import { type ActionResult, runAction } from './composite-runner.js';

const ACTION = join(ROOT, 'action.yml');
const repos: ReviewRepo[] = [];
let shimDir = '';

beforeAll(() => {
  ensureBuilt();
  // `npx --yes revloop@VERSION …` runs this checkout's build, and logs the version it was asked for.
  shimDir = mkdtempSync(join(tmpdir(), 'revloop-npx-'));
  const shim = join(shimDir, 'npx');
  writeFileSync(
    shim,
    `#!/bin/sh
[ "$1" = --yes ] && shift
case "$1" in revloop@*) echo "$1" >> "${shimDir}/asked"; shift ;; *) echo "npx shim: unexpected $1" >&2; exit 127 ;; esac
exec "${process.execPath}" "${CLI}" "$@"
`,
  );
  chmodSync(shim, 0o755);
}, 120_000);

afterAll(async () => {
  for (const r of repos) await r.cleanup();
  rmSync(shimDir, { recursive: true, force: true });
});

async function repoWith(reply: unknown): Promise<ReviewRepo> {
  const r = await makeReviewRepo({ config: (a) => baseConfig(a) });
  repos.push(r);
  r.plan({ reviewer: [{ reply }] });
  return r;
}

function action(r: ReviewRepo, inputs: Record<string, string>): ActionResult {
  const env = testEnv({ PATH: `${shimDir}:${process.env.PATH ?? ''}` });
  delete env.GITHUB_BASE_REF;
  return runAction({ actionPath: ACTION, inputs: { version: '0.1.0', ...inputs }, workspace: r.dir, env });
}

/** A `::error` workflow command on the step's stdout or stderr (the runner reads both). */
const errorCommands = (s: { stdout: string; stderr: string }): string[] =>
  `${s.stdout}\n${s.stderr}`.split('\n').filter((l) => l.startsWith('::error '));

describe('the runner emulation', () => {
  it('runs a step with errexit and pipefail on, as GitHub does (so the tests below can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'revloop-action-'));
    const step = (run: string) => ({ shell: 'bash', run });
    writeFileSync(
      join(dir, 'action.yml'),
      JSON.stringify({
        inputs: { who: { default: 'x' } },
        outputs: { seen: { value: `\${{ steps.a.outputs.seen }}` } },
        runs: {
          using: 'composite',
          steps: [
            {
              id: 'a',
              ...step(`echo "seen=\${{ inputs.who }}" >> "$GITHUB_OUTPUT"\nfalse | true\necho after-pipe`),
            },
            { id: 'b', ...step('false\necho after-false') },
            { id: 'c', ...step('echo never') },
          ],
        },
      }),
    );
    const res = runAction({
      actionPath: join(dir, 'action.yml'),
      inputs: {},
      workspace: dir,
      env: process.env,
    });
    rmSync(dir, { recursive: true, force: true });
    expect(res.step('a').code).not.toBe(0); // pipefail: `false | true` fails, errexit stops the script
    expect(res.step('a').stdout).not.toContain('after-pipe');
    expect(res.outputs.seen).toBe('x');
    expect(res.step('b').code).toBeNull(); // skipped after a failure, as success() does
    expect(res.failed).toBe(true);
  });
});

describe('action.yml steps under bash --noprofile --norc -eo pipefail', () => {
  it('verify ok: summary, outputs, the step succeeds', async () => {
    const r = await repoWith(pass);
    const rec = join(r.dir, 'rec.json');
    const rev = await runCli(['review', '--head', r.branch, '--out', rec], { cwd: r.dir });
    expect(rev.code, rev.stderr).toBe(0);
    const res = action(r, { record: rec });
    expect(res.step('review').code).toBeNull();
    const v = res.step('verify');
    expect(v.code, v.stderr).toBe(0);
    expect(res.failed).toBe(false);
    expect(res.outputs).toMatchObject({ ok: 'true', code: 'ok' });
    expect(res.outputs['run-id']).toMatch(/^r/);
    expect(res.summary).toContain('### ✅ revloop verify: ok');
    expect(errorCommands(v)).toEqual([]);
    // Trusted keys given as a newline-separated input (a trailing newline, as YAML's `|` leaves).
    const withKey = action(r, { record: rec, key: `${join(r.dir, '.revloop/keys/signing.pub')}\n` });
    expect(withKey.step('verify').code, withKey.step('verify').stderr).toBe(0);
    expect(withKey.step('verify').script).toContain('set -euo pipefail');
    expect(readFileSync(join(shimDir, 'asked'), 'utf8').trim().split('\n')).toContain('revloop@0.1.0');
  }, 120_000);

  it('a refused record: summary, outputs and ::error are written, and the step fails with verify’s code', async () => {
    const r = await repoWith(pass);
    const rec = join(r.dir, 'rec.json');
    expect((await runCli(['review', '--head', r.branch, '--out', rec], { cwd: r.dir })).code).toBe(0);
    // A push after the review: the record no longer covers HEAD.
    r.repo.write('src/calc.js', '// changed after the review\n');
    r.repo.commit('after the review');
    const res = action(r, { record: rec });
    const v = res.step('verify');
    expect(v.code, v.stderr).toBe(3);
    expect(res.failed).toBe(true);
    expect(res.outputs).toMatchObject({ ok: 'false', code: 'subject_mismatch' });
    expect(res.outputs['run-id']).toMatch(/^r/);
    expect(res.summary).toContain('### ❌ revloop verify: refused (subject\\_mismatch)');
    const errs = errorCommands(v);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^::error title=revloop verify::subject_mismatch: record covers /);
  }, 120_000);

  it('review: true with findings and allow-findings true: the review step goes on, verify accepts', async () => {
    const r = await repoWith(findings(raceFinding()));
    const res = action(r, { review: 'true', 'allow-findings': 'true' });
    const rv = res.step('review');
    expect(rv.code, rv.stderr).toBe(0);
    expect(rv.stdout).toContain('review exited 1');
    expect(rv.outputs.record).toMatch(/revloop-record\.json$/);
    // The review's annotations and its summary reached the runner.
    expect(errorCommands(rv)[0]).toMatch(/^::error file=src\/calc\.js,line=11,endLine=14,/);
    expect(res.summary).toContain('revloop review: completed: findings');
    const v = res.step('verify');
    expect(v.code, v.stderr).toBe(0);
    expect(res.failed).toBe(false);
    expect(res.outputs).toMatchObject({ ok: 'true', code: 'ok' });
    expect(res.summary).toContain('### ✅ revloop verify: ok');
  }, 120_000);

  it('review: true with findings and allow-findings false: verify refuses, the action fails with exit 1', async () => {
    const r = await repoWith(findings(raceFinding()));
    const res = action(r, { review: 'true' });
    expect(res.step('review').code, res.step('review').stderr).toBe(0);
    const v = res.step('verify');
    expect(v.code, v.stderr).toBe(1);
    expect(res.failed).toBe(true);
    expect(res.outputs).toMatchObject({ ok: 'false', code: 'findings' });
    expect(res.summary).toContain('revloop review: completed: findings');
    expect(res.summary).toContain('### ❌ revloop verify: refused (findings)');
    expect(errorCommands(v)[0]).toMatch(/^::error title=revloop verify::findings: /);
  }, 120_000);

  it('review: true on a run that did not complete: no record, so verify refuses (never ok)', async () => {
    const r = await repoWith(pass);
    r.plan({ reviewer: [{ exit: 1 }] });
    const res = action(r, { review: 'true' });
    expect(res.step('review').code, res.step('review').stderr).toBe(0);
    expect(res.step('review').stdout).toContain('review exited 3');
    const v = res.step('verify');
    expect(v.code).not.toBe(0);
    expect(res.outputs.ok).toBe('false');
    expect(res.summary).toContain('revloop review: failed');
    expect(res.summary).toContain('### ❌ revloop verify: no record (not_completed)');
    expect(res.outputs.code).toBe('not_completed');
    expect(v.code).toBe(3);
    expect(errorCommands(v)).toHaveLength(1);
  }, 120_000);

  it('publish: true where publishing fails (no token): a warning, the step goes on, verify is the gate', async () => {
    const r = await repoWith(pass);
    const res = action(r, { review: 'true', publish: 'true' });
    expect(res.step('review').code, res.step('review').stderr).toBe(0);
    const p = res.step('publish');
    // Under errexit the old `cmd; code=$?` never reached its warning: the step died with publish's code.
    expect(p.code, p.stderr).toBe(0);
    expect(`${p.stdout}\n${p.stderr}`).toMatch(/^::warning title=revloop publish::publish exited [1-9]/m);
    expect(res.step('verify').code, res.step('verify').stderr).toBe(0);
    expect(res.failed).toBe(false);
  }, 120_000);

  it('no record at all: a usage error with its summary, outputs and ::error', async () => {
    const r = await repoWith(pass);
    const res = action(r, {});
    const v = res.step('verify');
    expect(v.code).toBe(2);
    expect(res.outputs).toMatchObject({ ok: 'false', code: 'usage' });
    expect(res.summary).toContain('### ❌ revloop verify: no record (usage)');
    expect(errorCommands(v)[0]).toMatch(/^::error title=revloop verify::no revloop record for [0-9a-f]{7}/);
  }, 120_000);
});
