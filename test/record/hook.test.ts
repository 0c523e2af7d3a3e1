/** The pre-push hook, exercised with real pushes to a bare repository. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreHooksPath } from '../../src/git/dot-git.js';
import { HOOK_MARKER } from '../../src/record/hook.js';
import { signStatement } from '../../src/record/write.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { cli, ensureBuilt, type Fixture, makeFixture, pushRunningHooks } from './setup.js';

let fx: Fixture;
let remote: string;
beforeAll(async () => {
  ensureBuilt();
  fx = await makeFixture();
  remote = mkdtempSync(join(tmpdir(), 'revloop-remote-'));
  execFileSync('git', ['init', '-q', '--bare', remote], { env: TEST_GIT_ENV });
  fx.repo.git(['remote', 'add', 'origin', remote]);
});
afterAll(async () => {
  await fx?.repo.cleanup();
  rmSync(remote, { recursive: true, force: true });
});

const push = (ref: string) => pushRunningHooks(fx.repo.dir, ref);

const remoteHas = (ref: string): string | null => {
  try {
    return execFileSync('git', ['rev-parse', ref], {
      cwd: remote,
      env: TEST_GIT_ENV,
      encoding: 'utf8',
    }).trim();
  } catch {
    return null;
  }
};

describe('revloop hook install', () => {
  it('installs an executable pre-push hook that refuses a push without a verifying record', async () => {
    const r = cli(['hook', 'install', '--repo', fx.repo.dir], fx.repo.dir);
    expect(r.code).toBe(0);
    const hook = join(fx.repo.dir, '.git/hooks/pre-push');
    expect(statSync(hook).mode & 0o777).toBe(0o755);
    expect(readFileSync(hook, 'utf8')).toContain(HOOK_MARKER);

    const refused = push('feature');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('no record in .revloop/records/ verifies for this commit');
    expect(refused.stderr).toContain('revloop review');
    expect(remoteHas('feature')).toBeNull();

    // A record of another commit does not help; one of HEAD does.
    const records = join(fx.repo.dir, '.revloop/records');
    mkdirSync(records, { recursive: true });
    writeFileSync(
      join(records, 'old.json'),
      JSON.stringify(signStatement(await fx.statement({ id: 'old', head: fx.head }), fx.team)),
    );
    expect(push('feature').code).not.toBe(0);
    writeFileSync(
      join(records, 'run-0001.json'),
      JSON.stringify(signStatement(await fx.statement(), fx.team)),
    );
    const ok = push('feature');
    expect(ok).toEqual({ code: 0, stderr: '' });
    expect(remoteHas('feature')).toBe(fx.fix);

    // A new commit after the review needs a new record.
    fx.repo.write('src/a.ts', 'export let n = 1;\n');
    fx.repo.commit('after review');
    const again = push('feature');
    expect(again.code).not.toBe(0);
    expect(remoteHas('feature')).toBe(fx.fix);
    // Records that fail for another reason than the commit are named.
    writeFileSync(join(records, 'broken.json'), '{"payloadType":');
    expect(push('feature').stderr).toContain('broken.json: revloop verify: refused: malformed');
  });

  it('refuses to replace a foreign hook without --force, and updates its own', () => {
    const hook = join(fx.repo.dir, '.git/hooks/pre-push');
    expect(cli(['hook', 'install', '--repo', fx.repo.dir], fx.repo.dir).stdout).toContain('(updated)');
    writeFileSync(hook, '#!/bin/sh\nexit 0\n');
    const r = cli(['hook', 'install', '--repo', fx.repo.dir], fx.repo.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('was not written by revloop (use --force');
    expect(readFileSync(hook, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(cli(['hook', 'install', '--repo', fx.repo.dir, '--force'], fx.repo.dir).code).toBe(0);
    expect(readFileSync(hook, 'utf8')).toContain(HOOK_MARKER);
  });

  it('respects core.hooksPath', () => {
    fx.repo.git(['config', 'core.hooksPath', '.githooks']);
    try {
      expect(cli(['hook', 'install', '--repo', fx.repo.dir], fx.repo.dir).code).toBe(0);
      expect(existsSync(join(fx.repo.dir, '.githooks/pre-push'))).toBe(true);
    } finally {
      fx.repo.git(['config', '--unset', 'core.hooksPath']);
    }
  });

  it('reads core.hooksPath only from the [core] section', () => {
    expect(coreHooksPath('[core]\n\tbare = false\n\thooksPath = /x/hooks\n[other]\n\thooksPath = /y\n')).toBe(
      '/x/hooks',
    );
    expect(coreHooksPath('[remote "origin"]\n\thooksPath = /y\n')).toBeNull();
    expect(coreHooksPath('[Core]\n\tHooksPath = "rel/dir"\n')).toBe('rel/dir');
  });
});
