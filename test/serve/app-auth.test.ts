/**
 * GitHub App authentication against a loopback GitHub that speaks the two
 * endpoints the App uses (each request checked against @octokit/openapi) and
 * verifies every JWT's RS256 signature with the App's public key, generated
 * here. Expiry is judged on the clock the test passes in: no sleeping.
 */
import { generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { AppAuthError, githubCredentialsFromEnv, repoTokens } from '../../src/serve/app-auth.js';
import { githubOpenApi } from '../forge/openapi.js';

const APP_ID = '31337';
const HOUR = 3_600_000;

interface Exchange {
  installation: number;
  iss: unknown;
}

/** GitHub's side of an App: installations by repository, one token per exchange. */
class LoopbackAppGitHub {
  readonly exchanges: Exchange[] = [];
  readonly rejected: string[] = [];
  readonly violations: string[] = [];
  readonly installations = new Map<string, number>([['acme/widgets', 42]]);
  readonly revoked = new Set<number>();
  /** The expiry GitHub states for each new token, in ms. */
  expiresAt = Date.UTC(2030, 0, 1, 13);
  private server: Server | null = null;
  url = '';

  constructor(private readonly publicKey: KeyObject) {}

  async start(): Promise<this> {
    githubOpenApi();
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', this.url);
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(data));
      };
      try {
        githubOpenApi().check(req.method ?? 'GET', url, body);
      } catch (err) {
        this.violations.push((err as Error).message);
        return send(400, { message: (err as Error).message });
      }
      const claims = this.verifyJwt(req.headers.authorization ?? '');
      if (!claims) return send(401, { message: 'A JSON web token could not be decoded' });
      let m = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(url.pathname);
      if (m && req.method === 'GET') {
        const id = this.installations.get(`${m[1]}/${m[2]}`);
        return id === undefined
          ? send(404, { message: 'Not Found' })
          : send(200, { id, app_id: Number(APP_ID) });
      }
      m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
      if (m && req.method === 'POST') {
        const installation = Number(m[1]);
        if (this.revoked.has(installation)) return send(404, { message: 'Not Found' });
        this.exchanges.push({ installation, iss: claims.iss });
        return send(201, {
          token: `ghs_${installation}_${this.exchanges.length}`,
          expires_at: new Date(this.expiresAt).toISOString(),
          permissions: { contents: 'read', pull_requests: 'write' },
          repository_selection: 'all',
        });
      }
      return send(404, { message: 'Not Found' });
    });
    await new Promise<void>((ok) => this.server?.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((ok) => this.server?.close(() => ok()));
  }

  /** The JWT's claims when its RS256 signature verifies with the App's public key and it is current. */
  private verifyJwt(authorization: string): Record<string, unknown> | null {
    const jwt = /^bearer (.+)$/i.exec(authorization)?.[1];
    const parts = jwt?.split('.');
    if (parts?.length !== 3) return this.reject('not a JWT');
    const [h, p, s] = parts as [string, string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (header.alg !== 'RS256') return this.reject(`alg ${String(header.alg)}`);
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), this.publicKey, Buffer.from(s, 'base64url')))
      return this.reject('bad signature');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    const nowS = Date.now() / 1000;
    // GitHub's rules: issued no later than now (with skew), expiring within ten minutes.
    if (typeof claims.iat !== 'number' || claims.iat > nowS + 60) return this.reject('iat in the future');
    if (typeof claims.exp !== 'number' || claims.exp < nowS || claims.exp - claims.iat > 600)
      return this.reject('exp out of range');
    if (String(claims.iss) !== APP_ID) return this.reject(`iss ${String(claims.iss)}`);
    return claims;
  }

  private reject(why: string): null {
    this.rejected.push(why);
    return null;
  }
}

const appKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = appKey.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
let gh: LoopbackAppGitHub;
let dir: string;

beforeAll(async () => {
  gh = await new LoopbackAppGitHub(appKey.publicKey).start();
  dir = mkdtempSync(join(tmpdir(), 'revloop-app-auth-'));
});
afterAll(async () => {
  await gh.stop();
  rmSync(dir, { recursive: true, force: true });
  expect(gh.violations).toEqual([]);
});

const appEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const keyFile = join(dir, 'app.pem');
  writeFileSync(keyFile, pem, { mode: 0o600 });
  return {
    REVLOOP_GITHUB_APP_ID: APP_ID,
    REVLOOP_GITHUB_APP_PRIVATE_KEY_FILE: keyFile,
    REVLOOP_GITHUB_API_URL: gh.url,
    ...extra,
  };
};

describe('GitHub App installation tokens', () => {
  it('signs a JWT GitHub verifies, exchanges it once, and reuses the token until the margin before expiry', async () => {
    const before = gh.exchanges.length;
    const tokens = repoTokens(githubCredentialsFromEnv(appEnv()));
    const t0 = gh.expiresAt - HOUR;
    const first = await tokens.tokenFor('acme/widgets', t0);
    expect(first).toBe(`ghs_42_${before + 1}`);
    // Within the hour, short of the five-minute margin: the cached token, no exchange.
    expect(await tokens.tokenFor('acme/widgets', t0 + 30 * 60_000)).toBe(first);
    expect(await tokens.tokenFor('acme/widgets', gh.expiresAt - 5 * 60_000 - 1)).toBe(first);
    expect(gh.exchanges.length).toBe(before + 1);
    // At the margin: exchanged again before GitHub would refuse the old one.
    gh.expiresAt += HOUR;
    const second = await tokens.tokenFor('acme/widgets', gh.expiresAt - HOUR - 5 * 60_000);
    expect(second).not.toBe(first);
    expect(gh.exchanges.slice(before)).toEqual([
      { installation: 42, iss: APP_ID },
      { installation: 42, iss: APP_ID },
    ]);
    expect(gh.rejected).toEqual([]);
  });

  it('shares one exchange among callers asking at once', async () => {
    const before = gh.exchanges.length;
    const tokens = repoTokens(githubCredentialsFromEnv(appEnv()));
    const got = await Promise.all(
      Array.from({ length: 8 }, () => tokens.tokenFor('acme/widgets', gh.expiresAt - HOUR, 42)),
    );
    expect(new Set(got).size).toBe(1);
    expect(gh.exchanges.length).toBe(before + 1);
  });

  it('reads the key inline from the environment too (with \\n escapes, as secret stores keep it)', async () => {
    const creds = githubCredentialsFromEnv({
      REVLOOP_GITHUB_APP_ID: APP_ID,
      REVLOOP_GITHUB_APP_PRIVATE_KEY: pem.replace(/\n/g, '\\n'),
      REVLOOP_GITHUB_API_URL: gh.url,
    });
    expect(await repoTokens(creds).tokenFor('acme/widgets', 0, 42)).toMatch(/^ghs_42_/);
  });

  it('a JWT signed with another key is refused by GitHub: a one-line error, never the key', async () => {
    const forged = otherKey.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const tokens = repoTokens({ kind: 'app', appId: APP_ID, privateKey: forged, apiUrl: gh.url });
    const err = await tokens.tokenFor('acme/widgets', 0, 42).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppAuthError);
    expect((err as Error).message).toMatch(/installation 42 of the GitHub App refused a token \(401\)/);
    expect((err as Error).message).not.toContain('PRIVATE KEY');
    expect(gh.rejected).toContain('bad signature');
  });

  it('a repository the App is not installed on, and a revoked installation, are clear refusals', async () => {
    const tokens = repoTokens(githubCredentialsFromEnv(appEnv()));
    await expect(tokens.tokenFor('acme/elsewhere', 0)).rejects.toThrow(
      'the GitHub App is not installed on acme/elsewhere',
    );
    gh.installations.set('acme/gadgets', 77);
    gh.revoked.add(77);
    await expect(tokens.tokenFor('acme/gadgets', 0)).rejects.toThrow(
      /installation 77 .* refused a token \(404\)/,
    );
  });

  it('a plain token serves its one repository and refuses any other', async () => {
    const tokens = repoTokens(
      githubCredentialsFromEnv({ REVLOOP_GITHUB_TOKEN: 'ghp_plain', REVLOOP_GITHUB_REPO: 'acme/widgets' }),
    );
    expect(await tokens.tokenFor('acme/widgets', 0)).toBe('ghp_plain');
    await expect(tokens.tokenFor('acme/gadgets', 0)).rejects.toThrow(
      'the plain token serves acme/widgets only, not acme/gadgets',
    );
  });
});

describe('credentials from the environment', () => {
  const refused: [string, NodeJS.ProcessEnv, RegExp][] = [
    ['nothing set', {}, /no GitHub credentials: set REVLOOP_GITHUB_APP_ID/],
    [
      'an id that is not a number',
      { REVLOOP_GITHUB_APP_ID: 'my-app' },
      /REVLOOP_GITHUB_APP_ID must be the App's numeric id/,
    ],
    ['an id without a key', { REVLOOP_GITHUB_APP_ID: '1' }, /must name its private key/],
    [
      'both key sources',
      {
        REVLOOP_GITHUB_APP_ID: '1',
        REVLOOP_GITHUB_APP_PRIVATE_KEY: 'x',
        REVLOOP_GITHUB_APP_PRIVATE_KEY_FILE: '/k',
      },
      /not both/,
    ],
    [
      'a key that is not PEM',
      { REVLOOP_GITHUB_APP_ID: '1', REVLOOP_GITHUB_APP_PRIVATE_KEY: 'secret-looking-text' },
      /REVLOOP_GITHUB_APP_PRIVATE_KEY is not a PEM private key/,
    ],
    [
      'a key file that cannot be read',
      { REVLOOP_GITHUB_APP_ID: '1', REVLOOP_GITHUB_APP_PRIVATE_KEY_FILE: '/nonexistent/app.pem' },
      /cannot read \/nonexistent\/app.pem \(ENOENT\)/,
    ],
    ['a token without its repository', { REVLOOP_GITHUB_TOKEN: 't' }, /REVLOOP_GITHUB_REPO must name it/],
  ];
  it.each(refused)('%s is a usage error naming the variable', (_name, env, message) => {
    const err = (() => {
      try {
        githubCredentialsFromEnv(env);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('secret-looking-text');
  });

  it('the key file is read, never copied anywhere', () => {
    const before = readdirSync(dir).sort();
    const creds = githubCredentialsFromEnv(appEnv());
    expect(creds.kind).toBe('app');
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readFileSync(join(dir, 'app.pem'), 'utf8')).toBe(pem);
  });
});
