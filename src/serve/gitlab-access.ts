/**
 * The GitLab counterpart of github-access.ts: one token (a project, group or
 * user access token with the `api` scope and at least the developer role)
 * for the comment commands' forge and the mirror's fetch, the clone URL, and
 * the runs' name of a project, as `Git.identity` reads it back from the
 * mirror.
 */
import { UsageError } from '../core/errors.js';
import type { CommandForge } from '../forge/commands.js';
import { gitlabCommandForge } from '../forge/gitlab/commands.js';
import { identityFromRemote } from '../git/identity.js';
import type { FetchCredential } from '../git/mirror.js';

export const GITLAB_ENV = { token: 'REVLOOP_GITLAB_TOKEN', apiUrl: 'REVLOOP_GITLAB_API_URL' } as const;

export interface GitLabCredentials {
  token: string;
  apiUrl: string;
}

export interface GitLabAccess {
  commands: CommandForge;
  cloneUrl(project: string): string;
  identity(project: string): string;
  fetchCredential(project: string): Promise<FetchCredential>;
}

export function gitlabCredentialsFromEnv(env: NodeJS.ProcessEnv): GitLabCredentials {
  const token = env[GITLAB_ENV.token]?.trim();
  if (!token)
    throw new UsageError(
      `no GitLab credentials: set ${GITLAB_ENV.token} (an access token with the api scope)`,
    );
  const apiUrl = (env[GITLAB_ENV.apiUrl]?.trim() || 'https://gitlab.com/api/v4').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+(\/.*)?\/api\/v4$/.test(apiUrl))
    throw new UsageError(`${GITLAB_ENV.apiUrl} must be GitLab's API URL, ending in /api/v4`);
  return { token, apiUrl };
}

export function gitlabAccess(creds: GitLabCredentials, o: { webUrl?: string } = {}): GitLabAccess {
  const web = (o.webUrl ?? creds.apiUrl.replace(/\/api\/v4$/, '')).replace(/\/+$/, '');
  const token = async () => creds.token;
  const cloneUrl = (project: string) => `${web}/${project}.git`;
  return {
    commands: gitlabCommandForge({ apiUrl: creds.apiUrl, token }),
    cloneUrl,
    identity: (project) => identityFromRemote('', cloneUrl(project)),
    // GitLab takes any user name with an access token as the password; `oauth2` is its documented one.
    fetchCredential: async () => ({ username: 'oauth2', password: creds.token }),
  };
}
