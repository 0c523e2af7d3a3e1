/**
 * The GitLab component (templates/revloop.yml) and the example job
 * (examples/gitlab-ci.yml) checked by a real consumer of GitLab's CI schema:
 * gitlab-ci-local, which validates a pipeline against the `ci.json` schema
 * GitLab's own editor uses (bundled in the package) after interpolating
 * `spec: inputs`. The component is included with `include: local` and its
 * inputs, as a project would include it; a broken copy must be refused, so
 * the check is seen to check.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { ROOT } from '../loop/helpers.js';

const CLI = join(ROOT, 'node_modules/gitlab-ci-local/dist/index.js');
const scratch = mkdtempSync(join(tmpdir(), 'revloop-gitlab-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A git project holding `files`, previewed (parsed, included, interpolated, schema-validated). */
function preview(files: Record<string, string>) {
  const dir = mkdtempSync(join(scratch, 'project-'));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  const git = (args: string[]) =>
    spawnSync('git', args, { cwd: dir, env: { ...process.env, ...TEST_GIT_ENV } });
  git(['init', '-q', '-b', 'main']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'pipeline']);
  const res = spawnSync(process.execPath, [CLI, '--preview'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...TEST_GIT_ENV },
    timeout: 120_000,
  });
  return { code: res.status, out: `${res.stdout}\n${res.stderr}` };
}

const template = readFileSync(join(ROOT, 'templates/revloop.yml'), 'utf8');
const including = (inputs: string) => `include:\n  - local: templates/revloop.yml\n    inputs:\n${inputs}`;

describe("GitLab's CI schema", () => {
  it('accepts the component as a project includes it, with its inputs interpolated', () => {
    const res = preview({
      'templates/revloop.yml': template,
      '.gitlab-ci.yml': including('      ref: v1.2.3\n      review: true\n      publish: true\n'),
    });
    expect(res.code, res.out).toBe(0);
    expect(res.out).toMatch(/json schema validated/);
    expect(res.out).toMatch(/REVLOOP_REF: v1\.2\.3/);
    expect(res.out).toMatch(/REVLOOP_REVIEW: 'true'/);
  });

  it('accepts the example job', () => {
    const res = preview({ '.gitlab-ci.yml': readFileSync(join(ROOT, 'examples/gitlab-ci.yml'), 'utf8') });
    expect(res.code, res.out).toBe(0);
    expect(res.out).toMatch(/json schema validated/);
  });

  it('refuses a component the schema does not allow, and an input of the wrong type', () => {
    const broken = template.replace(/^(revloop:\n)/m, '$1  retry: banana\n');
    expect(broken).not.toBe(template);
    const bad = preview({ 'templates/revloop.yml': broken, '.gitlab-ci.yml': including('      ref: v1\n') });
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/Invalid \.gitlab-ci\.yml configuration/);
    const wrongType = preview({
      'templates/revloop.yml': template,
      '.gitlab-ci.yml': including('      ref: v1\n      review: maybe\n'),
    });
    expect(wrongType.code, wrongType.out).not.toBe(0);
  });
});
