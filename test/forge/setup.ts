/** Shared parts of the publication tests: a fake GitHub with tokens, a PR built from a real repository, publish in-process. */

import { githubAdapter } from '../../src/forge/github/index.js';
import { type PublishOptions, publishRun } from '../../src/forge/index.js';
import { DEFAULT_PUBLISH_OPTIONS } from '../../src/forge/publish.js';
import { createGit } from '../../src/git/index.js';
import type { TestRepo } from '../helpers/git-repo.js';
import type { InProcess } from '../loop/helpers.js';
import { FakeGitHub, type FakePull } from './fake-github.js';

export const TOKENS = {
  app: 'ghs_app_token_0001',
  readOnly: 'ghs_fork_token_0002',
  pat: 'ghp_alice_pat_0003',
};

export async function startGitHub(): Promise<FakeGitHub> {
  const gh = await new FakeGitHub().start();
  gh.tokens.set(TOKENS.app, {
    login: 'github-actions[bot]',
    type: 'Bot',
    installation: true,
    canWrite: true,
    canCheck: true,
  });
  gh.tokens.set(TOKENS.readOnly, {
    login: 'github-actions[bot]',
    type: 'Bot',
    installation: true,
    canWrite: false,
    canCheck: false,
  });
  gh.tokens.set(TOKENS.pat, { login: 'alice', type: 'User', canWrite: true, canCheck: false });
  return gh;
}

/** GitHub's per-file patches of base...head (three lines of context), from the real repository. */
export function patches(repo: TestRepo, base: string, head: string): FakePull['files'] {
  const out: FakePull['files'] = [];
  const text = repo.git(['diff', '--no-color', '--no-renames', '-U3', `${base}...${head}`]);
  for (const part of text.split(/^diff --git /m).slice(1)) {
    const name = /^\+\+\+ b\/(.+)$/m.exec(part)?.[1] ?? /^--- a\/(.+)$/m.exec(part)?.[1] ?? '';
    const at = part.indexOf('\n@@');
    out.push({
      filename: name,
      status: /^new file/m.test(part) ? 'added' : /^deleted file/m.test(part) ? 'removed' : 'modified',
      patch: at >= 0 ? part.slice(at + 1) : '',
    });
  }
  return out;
}

/** Points pull request `n` at `head` (a push, or a force-push), with the diff the forge would show. */
export function pushTo(gh: FakeGitHub, repo: TestRepo, n: number, base: string, head: string): FakePull {
  const pr = gh.pulls.get(n) ?? {
    number: n,
    head,
    base,
    heads: [],
    files: [],
    headRepo: `${gh.owner}/${gh.repo}`,
  };
  pr.head = head;
  pr.base = base;
  pr.heads.push(head);
  pr.files = patches(repo, base, head);
  gh.pulls.set(n, pr);
  return pr;
}

export function publishGitHub(
  p: InProcess,
  dir: string,
  gh: FakeGitHub,
  runId: string,
  o: { token?: string; pull?: number; options?: Partial<PublishOptions>; retries?: number } = {},
) {
  const adapter = githubAdapter(
    { owner: gh.owner, repo: gh.repo, pull: o.pull ?? 7 },
    {
      token: o.token ?? TOKENS.app,
      baseUrl: gh.url,
      paceWrites: false,
      retryAfterUnitMs: 5,
      retries: o.retries ?? 3,
    },
  );
  return publishRun(
    { store: p.store, git: createGit(), repoRoot: dir, env: {} },
    { runId, adapter, options: { ...DEFAULT_PUBLISH_OPTIONS, ...o.options } },
  );
}
