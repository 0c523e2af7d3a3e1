/**
 * The tokens the service and its workers use on GitHub. As a GitHub App: the
 * App's id and private key (read from the environment or a file, never from
 * the ledger, never printed) sign a JWT that is exchanged for an
 * installation's one-hour token; tokens are cached per installation and
 * exchanged again a margin before they expire, judged on the clock the
 * caller passes in (the requests themselves are src/forge/github's).
 * Without an App, one plain token serves the one repository it was given for.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import {
  AppAuthError,
  githubAppInstallations,
  type InstallationToken,
} from '../forge/github/app-installation.js';

export { AppAuthError };

/** The environment variables the credentials are read from (docs/service.md). */
export const APP_ENV = {
  appId: 'REVLOOP_GITHUB_APP_ID',
  privateKey: 'REVLOOP_GITHUB_APP_PRIVATE_KEY',
  privateKeyFile: 'REVLOOP_GITHUB_APP_PRIVATE_KEY_FILE',
  token: 'REVLOOP_GITHUB_TOKEN',
  tokenRepo: 'REVLOOP_GITHUB_REPO',
  apiUrl: 'REVLOOP_GITHUB_API_URL',
} as const;

/** An installation token is exchanged again this long before GitHub says it expires. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export type GitHubCredentials =
  | { kind: 'app'; appId: string; privateKey: string; apiUrl: string }
  | { kind: 'token'; token: string; repo: string; apiUrl: string };

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const PEM = /^-----BEGIN (RSA )?PRIVATE KEY-----\n[\s\S]+\n-----END (RSA )?PRIVATE KEY-----\s*$/;

/**
 * The credentials the environment names: an App (id and key, the key inline
 * or in a file) or one plain token for one repository. UsageError naming the
 * variable when they are missing, partial or malformed; its message never
 * holds the key.
 */
export function githubCredentialsFromEnv(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): GitHubCredentials {
  const apiUrl = (env[APP_ENV.apiUrl]?.trim() || 'https://api.github.com').replace(/\/+$/, '');
  const appId = env[APP_ENV.appId]?.trim();
  if (appId) {
    if (!/^\d{1,20}$/.test(appId)) throw new UsageError(`${APP_ENV.appId} must be the App's numeric id`);
    const inline = env[APP_ENV.privateKey];
    const file = env[APP_ENV.privateKeyFile]?.trim();
    if (inline && file)
      throw new UsageError(`set ${APP_ENV.privateKey} or ${APP_ENV.privateKeyFile}, not both`);
    let key: string;
    if (inline) key = inline.replace(/\\n/g, '\n');
    else if (file) {
      try {
        key = readFile(file);
      } catch (err) {
        throw new UsageError(
          `${APP_ENV.privateKeyFile}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        );
      }
    } else
      throw new UsageError(
        `${APP_ENV.appId} is set: ${APP_ENV.privateKey} or ${APP_ENV.privateKeyFile} must name its private key`,
      );
    if (!PEM.test(key.trim() + '\n'))
      throw new UsageError(
        `${inline ? APP_ENV.privateKey : APP_ENV.privateKeyFile} is not a PEM private key (the .pem file GitHub gave for the App)`,
      );
    return { kind: 'app', appId, privateKey: key, apiUrl };
  }
  const token = env[APP_ENV.token]?.trim();
  if (token) {
    const repo = env[APP_ENV.tokenRepo]?.trim() ?? '';
    if (!REPO.test(repo))
      throw new UsageError(
        `${APP_ENV.token} serves one repository: ${APP_ENV.tokenRepo} must name it as owner/name`,
      );
    return { kind: 'token', token, repo, apiUrl };
  }
  throw new UsageError(
    `no GitHub credentials: set ${APP_ENV.appId} with ${APP_ENV.privateKeyFile} (a GitHub App), or ${APP_ENV.token} with ${APP_ENV.tokenRepo}`,
  );
}

/** A token for a repository, valid for at least the refresh margin at `now`. */
export interface RepoTokens {
  tokenFor(repo: string, now: number, installationId?: number): Promise<string>;
}

/**
 * Tokens from the credentials. An App's installation is the one the webhook
 * named, or else looked up for the repository; its token is reused until
 * `now` is within the margin of its expiry. Callers asking at once for one
 * installation share one exchange.
 */
export function repoTokens(creds: GitHubCredentials, margin: number = REFRESH_MARGIN_MS): RepoTokens {
  if (creds.kind === 'token')
    return {
      async tokenFor(repo) {
        if (repo.toLowerCase() !== creds.repo.toLowerCase())
          throw new AppAuthError(
            `the plain token serves ${creds.repo} only, not ${repo}: install the GitHub App to serve more repositories`,
            { repo },
          );
        return creds.token;
      },
    };
  const app = githubAppInstallations({
    appId: creds.appId,
    privateKey: creds.privateKey,
    apiUrl: creds.apiUrl,
  });
  const tokens = new Map<number, InstallationToken>();
  const pending = new Map<number, Promise<InstallationToken>>();
  const installations = new Map<string, number>();

  const installationOf = async (repo: string): Promise<number> => {
    const known = installations.get(repo.toLowerCase());
    if (known !== undefined) return known;
    const id = await app.installationOf(repo);
    installations.set(repo.toLowerCase(), id);
    return id;
  };

  return {
    async tokenFor(repo, now, installationId) {
      if (!REPO.test(repo))
        throw new AppAuthError(`${JSON.stringify(repo)} is not a repository as owner/name`);
      const id = installationId ?? (await installationOf(repo));
      const held = tokens.get(id);
      if (held && now < held.expiresAt - margin) return held.token;
      let flight = pending.get(id);
      if (!flight) {
        flight = app.exchange(id).finally(() => pending.delete(id));
        pending.set(id, flight);
      }
      try {
        const fresh = await flight;
        tokens.set(id, fresh);
        return fresh.token;
      } catch (err) {
        // The repository may have moved to another installation: look it up again next time.
        tokens.delete(id);
        installations.delete(repo.toLowerCase());
        throw err;
      }
    },
  };
}
