/**
 * The reconciler's read of a forge: the open pull (merge) requests and their
 * live heads, through octokit and gitbeaker unchanged, against the loopback
 * GitHub (every request checked against GitHub's OpenAPI) and GitLab.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listOpenPulls } from '../../src/forge/index.js';
import type { FakeGitHub } from '../forge/fake-github.js';
import { FakeGitLab } from '../forge/fake-gitlab.js';
import { startGitHub, TOKENS } from '../forge/setup.js';

let gh: FakeGitHub | null = null;
let gl: FakeGitLab | null = null;
afterEach(async () => {
  await gh?.stop();
  await gl?.stop();
  gh = null;
  gl = null;
});

const pull = (n: number, extra: object = {}) => ({
  number: n,
  head: `${n}`.padStart(40, 'a'),
  base: 'b'.repeat(40),
  heads: [],
  files: [],
  headRepo: 'acme/widgets',
  ...extra,
});

describe('listOpenPulls', () => {
  it('GitHub: open pull requests with their heads, drafts and bot authors marked; closed ones left out', async () => {
    gh = await startGitHub();
    gh.pulls.set(7, pull(7));
    gh.pulls.set(8, pull(8, { draft: true }));
    gh.pulls.set(9, pull(9, { author: { login: 'renovate[bot]', type: 'Bot' } }));
    gh.pulls.set(10, pull(10, { closed: true }));
    const open = await listOpenPulls({
      forge: 'github',
      repository: 'acme/widgets',
      apiUrl: gh.url,
      token: TOKENS.app,
    });
    expect(open).toEqual([
      {
        number: 7,
        head: pull(7).head,
        baseBranch: 'main',
        draft: false,
        author: 'alice',
        authorIsBot: false,
      },
      { number: 8, head: pull(8).head, baseBranch: 'main', draft: true, author: 'alice', authorIsBot: false },
      {
        number: 9,
        head: pull(9).head,
        baseBranch: 'main',
        draft: false,
        author: 'renovate[bot]',
        authorIsBot: true,
      },
    ]);
    expect(gh.violations).toEqual([]);
  });

  it('GitHub: a refused token is a ForgeRefusedError naming the request', async () => {
    gh = await startGitHub();
    await expect(
      listOpenPulls({ forge: 'github', repository: 'acme/widgets', apiUrl: gh.url, token: 'ghp_unknown' }),
    ).rejects.toMatchObject({ status: 401, what: expect.stringContaining('GET /repos/acme/widgets/pulls') });
  });

  it('GitLab: open merge requests with their heads', async () => {
    gl = await new FakeGitLab().start();
    gl.tokens.set('glpat-0001', { username: 'revloop-bot', canWrite: false });
    gl.mr.head = 'c'.repeat(40);
    const open = await listOpenPulls({
      forge: 'gitlab',
      repository: gl.project,
      apiUrl: gl.url,
      token: 'glpat-0001',
    });
    expect(open).toEqual([
      {
        number: 7,
        head: 'c'.repeat(40),
        baseBranch: 'main',
        draft: false,
        author: 'alice',
        authorIsBot: false,
      },
    ]);
    expect(gl.violations).toEqual([]);
  });
});
