/**
 * The GitHub Action's verify, its committed entry run as the runner runs it,
 * against a real checkout with a real remote carrying the record as a git note.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { signStatement } from '../../src/record/write.js';
import { runAction } from '../action/runner.js';
import { TEST_GIT_ENV } from '../helpers/git-repo.js';
import { ensureBuilt, type Fixture, makeFixture, ROOT } from './setup.js';

let fx: Fixture;
let remote: string;
beforeAll(async () => {
  ensureBuilt();
  fx = await makeFixture();
  remote = mkdtempSync(join(tmpdir(), 'revloop-action-remote-'));
  execFileSync('git', ['init', '-q', '--bare', remote], { env: TEST_GIT_ENV });
  fx.repo.git(['remote', 'add', 'origin', remote]);
  fx.repo.git(['push', '-q', 'origin', 'main', 'feature']);
});
afterAll(async () => {
  await fx?.repo.cleanup();
  rmSync(remote, { recursive: true, force: true });
});

async function runStep(inputs: Record<string, string>, env: NodeJS.ProcessEnv = {}) {
  const r = await runAction({
    actionDir: ROOT,
    inputs,
    workspace: fx.repo.dir,
    env: { ...TEST_GIT_ENV, ...env },
  });
  return { code: r.code, stderr: `${r.stdout}${r.stderr}`, outputs: r.outputs, summary: r.summary };
}

/** Publishes a record as the note on HEAD, as docs/ci.md tells the agent side to. */
async function publishNote(over: Parameters<Fixture['statement']>[0] = {}) {
  const path = join(fx.keysDir, 'note.json');
  writeFileSync(path, JSON.stringify(signStatement(await fx.statement(over), fx.team)));
  fx.repo.git(['notes', '--ref=revloop', 'add', '-f', '-F', path, 'HEAD']);
  fx.repo.git(['push', '-q', '-f', 'origin', 'refs/notes/revloop']);
  // CI's checkout has no notes until the step fetches them.
  fx.repo.git(['update-ref', '-d', 'refs/notes/revloop']);
}

describe('action.yml verify step', () => {
  it('fetches the note on HEAD, trusts keys from the target branch, and passes', async () => {
    await publishNote();
    const r = await runStep({}, { GITHUB_BASE_REF: 'main' });
    expect(r.stderr).not.toContain('::error');
    expect(r.code).toBe(0);
    expect(r.outputs).toEqual({ ok: 'true', code: 'ok', 'run-id': 'run-0001' });
    expect(r.summary).toContain('### ✅ revloop verify: ok');
  });

  it('fails the step with the verify exit code and an error annotation on a mismatch', async () => {
    await publishNote({ head: fx.head });
    const r = await runStep({}, { GITHUB_BASE_REF: 'main' });
    expect(r.code).toBe(3);
    expect(r.outputs).toMatchObject({ ok: 'false', code: 'subject_mismatch' });
    expect(r.summary).toContain('refused (subject\\_mismatch)');
    expect(r.stderr).toContain('::error title=revloop verify::subject_mismatch: record covers');
  });

  it('uses an explicit record and key, and refuses findings unless allowed', async () => {
    const path = join(fx.keysDir, 'findings.json');
    writeFileSync(
      path,
      JSON.stringify(
        signStatement(await fx.statement({ outcome: 'findings', stopReason: 'budget' }), fx.team),
      ),
    );
    expect((await runStep({ record: path, key: fx.teamPub })).code).toBe(1);
    expect((await runStep({ record: path, key: fx.teamPub, 'allow-findings': 'true' })).code).toBe(0);
  });

  it('trusts keys at refs/remotes/origin/<target>, never a tag of that short name pushed with the change', async () => {
    const r = fx.repo;
    r.git(['checkout', '-q', '-b', 'evil', fx.base]);
    r.write('evil.pub', readFileSync(fx.otherPub));
    r.write('revloop.config.yaml', 'criteria: REVIEW.md\nreviewers: []\nkeys:\n  - evil.pub\n');
    r.git(['tag', 'origin/main', r.commit('a config that trusts my key')]);
    r.git(['checkout', '-q', 'feature']);
    try {
      const path = join(fx.keysDir, 'evil-note.json');
      writeFileSync(path, JSON.stringify(signStatement(await fx.statement(), fx.other)));
      fx.repo.git(['notes', '--ref=revloop', 'add', '-f', '-F', path, 'HEAD']);
      fx.repo.git(['push', '-q', '-f', 'origin', 'refs/notes/revloop']);
      fx.repo.git(['update-ref', '-d', 'refs/notes/revloop']);
      const res = await runStep({}, { GITHUB_BASE_REF: 'main' });
      expect(res.code, res.stderr).toBe(4);
      expect(res.outputs).toMatchObject({ ok: 'false', code: 'unknown_key' });
    } finally {
      r.git(['tag', '-d', 'origin/main']);
    }
  });

  it('fails (exit 2) when there is no record at all', async () => {
    const r = await runStep({ 'notes-ref': 'nothing-here' });
    expect(r.code).toBe(2);
    expect(r.outputs.code).toBe('usage');
    expect(r.summary).toContain('no record');
  });
});

describe('examples/gitlab-ci.yml', () => {
  it('is valid YAML whose job verifies with keys from the target branch', () => {
    const ci = parse(readFileSync(join(ROOT, 'examples/gitlab-ci.yml'), 'utf8')) as Record<
      string,
      { script?: string[] }
    >;
    const script = ci['revloop-verify']?.script?.join('\n') ?? '';
    expect(script).toContain('node /tmp/revloop/action/dist/revloop.mjs verify revloop-record.json');
    // From the repository at a tag, never a registry package (none is published).
    expect(readFileSync(join(ROOT, 'examples/gitlab-ci.yml'), 'utf8')).not.toMatch(/npx|revloop@/);
    expect(script).toContain('--keys-from "refs/remotes/origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"');
  });
});
