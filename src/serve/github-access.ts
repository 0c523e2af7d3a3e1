/**
 * Everything the service and its workers reach GitHub with, from one set of
 * credentials: tokens per repository (an App's installation tokens or one
 * plain token), the comment commands' forge, the clone URL a repository's
 * mirror fetches from with the token as its credential, and the ledger's
 * name of the repository, which is that clone URL as `Git.identity` reads it
 * back from the mirror, so runs admitted from the mirror and commands about
 * them agree on it.
 */
import type { CommandForge } from '../forge/commands.js';
import { githubCommandForge } from '../forge/github/commands.js';
import { identityFromRemote } from '../git/identity.js';
import type { FetchCredential } from '../git/mirror.js';
import { type GitHubCredentials, type RepoTokens, repoTokens } from './app-auth.js';

export interface GitHubAccess {
  tokens: RepoTokens;
  commands: CommandForge;
  /** `https://github.com/owner/name.git` (GitHub Enterprise: the server's host). */
  cloneUrl(repo: string): string;
  /** The runs' `repo` for `owner/name`. */
  identity(repo: string): string;
  /** What a mirror's fetch authenticates with: the repository's token, as git's HTTPS user name and password. */
  fetchCredential(repo: string): Promise<FetchCredential>;
}

/** The web host of an API URL: api.github.com is github.com; GitHub Enterprise serves its API under /api/v3. */
export function webUrlOf(apiUrl: string): string {
  const u = new URL(apiUrl);
  if (u.hostname === 'api.github.com') return 'https://github.com';
  return `${u.origin}${u.pathname.replace(/\/api\/v3\/?$/, '').replace(/\/+$/, '')}`;
}

export function githubAccess(
  creds: GitHubCredentials,
  clock: { now(): number },
  o: { webUrl?: string; paceWrites?: boolean } = {},
): GitHubAccess {
  const tokens = repoTokens(creds);
  const web = (o.webUrl ?? webUrlOf(creds.apiUrl)).replace(/\/+$/, '');
  const token = (repo: string) => tokens.tokenFor(repo, clock.now());
  const cloneUrl = (repo: string) => `${web}/${repo}.git`;
  return {
    tokens,
    commands: githubCommandForge({ apiUrl: creds.apiUrl, token, paceWrites: o.paceWrites ?? true }),
    cloneUrl,
    identity: (repo) => identityFromRemote('', cloneUrl(repo)),
    fetchCredential: async (repo) => ({ username: 'x-access-token', password: await token(repo) }),
  };
}
