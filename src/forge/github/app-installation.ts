/**
 * A GitHub App's two requests, through @octokit/auth-app: the installation
 * of a repository, and an installation's token in exchange for the App's
 * JWT (signed with its private key; the key goes to the library and nowhere
 * else). When to exchange is the caller's decision (src/serve/app-auth.ts
 * caches on its own clock), so every exchange here is a fresh one.
 */
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { RevloopError } from '../../core/errors.js';
import { CONTROLLER_VERSION } from '../../version.js';

/** The App's credentials could not be used: one line, never the key or a token. */
export class AppAuthError extends RevloopError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('forge_refused', message, data);
  }
}

export interface InstallationToken {
  token: string;
  /** When GitHub says it expires (ms). */
  expiresAt: number;
}

export interface GitHubAppInstallations {
  /** The installation of the App on `owner/name`. */
  installationOf(repo: string): Promise<number>;
  exchange(installationId: number): Promise<InstallationToken>;
}

export function githubAppInstallations(o: {
  appId: string;
  privateKey: string;
  apiUrl: string;
}): GitHubAppInstallations {
  const request = new Octokit({
    baseUrl: o.apiUrl,
    userAgent: CONTROLLER_VERSION,
    log: { debug() {}, info() {}, warn() {}, error() {} },
  }).request;
  const auth = createAppAuth({ appId: o.appId, privateKey: o.privateKey, request });
  return {
    async installationOf(repo) {
      const [owner, name] = repo.split('/') as [string, string];
      const { token: jwt } = await auth({ type: 'app' });
      const res = await request('GET /repos/{owner}/{repo}/installation', {
        owner,
        repo: name,
        headers: { authorization: `bearer ${jwt}` },
      }).catch((err: { status?: number }) => {
        throw new AppAuthError(
          err.status === 404
            ? `the GitHub App is not installed on ${repo}`
            : `looking up the GitHub App's installation on ${repo} failed (${err.status ?? 'no answer'})`,
          { repo, status: err.status ?? null },
        );
      });
      return res.data.id;
    },
    async exchange(installationId) {
      try {
        // refresh: the library keeps its own cache on the wall clock; the caller decides when to ask.
        const a = await auth({ type: 'installation', installationId, refresh: true });
        const expiresAt = Date.parse(a.expiresAt);
        if (!Number.isFinite(expiresAt)) throw new AppAuthError('GitHub answered a token without its expiry');
        return { token: a.token, expiresAt };
      } catch (err) {
        if (err instanceof AppAuthError) throw err;
        const status = (err as { status?: number }).status;
        throw new AppAuthError(
          status === 404 || status === 401 || status === 403
            ? `installation ${installationId} of the GitHub App refused a token (${status}): removed, suspended, or the App's key was revoked`
            : `exchanging the GitHub App's JWT for installation ${installationId}'s token failed (${status ?? 'no answer'})`,
          { installationId, status: status ?? null },
        );
      }
    },
  };
}
