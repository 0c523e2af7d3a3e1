/**
 * The git side of a repository's shared bare mirror: made once, then fetched
 * into. The credential of a fetch reaches git only through the environment of
 * that one process (`GIT_CONFIG_COUNT`, git's configuration by environment):
 * never in the remote URL, the mirror's config, or git's arguments, so no
 * file of the mirror and no process listing holds it. Credential helpers are
 * turned off for the fetch, so none stores it either.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { GitError } from './errors.js';
import { createRunner, type GitOptions } from './run.js';

/** A user name and secret for the forge's HTTPS git endpoint (e.g. `x-access-token` and a token). */
export interface FetchCredential {
  username: string;
  password: string;
}

/** A ref the mirror fetches besides the branches: a full name, no pattern, no refspec syntax. */
const PLAIN_REF = /^refs\/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export function isPlainRef(ref: string): boolean {
  return PLAIN_REF.test(ref) && !ref.includes('..') && !ref.endsWith('.lock');
}

/**
 * The variables that hand git the credential for requests under `url` only:
 * an Authorization header scoped to the URL (a redirect to another host does
 * not get it), and an empty credential-helper list so no helper on the
 * machine is asked or told.
 */
export function credentialEnv(url: string, cred: FetchCredential): Record<string, string> {
  const basic = Buffer.from(`${cred.username}:${cred.password}`, 'utf8').toString('base64');
  return {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: `http.${url}.extraHeader`,
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    GIT_CONFIG_KEY_1: 'credential.helper',
    GIT_CONFIG_VALUE_1: '',
  };
}

export interface MirrorGit {
  /** The URL the mirror at `dir` fetches from, or null when `dir` is not a finished mirror. */
  originOf(dir: string): Promise<string | null>;
  /** Makes a bare mirror of `url` at `dir` (which must not exist yet). */
  create(dir: string, url: string): Promise<void>;
  /** Fetches every branch (pruning deleted ones) and each of `refs` into the mirror. */
  fetch(dir: string, refs: readonly string[], cred: FetchCredential | null): Promise<void>;
}

export function mirrorGit(opts: GitOptions = {}): MirrorGit {
  const run = createRunner(opts);
  return {
    async originOf(dir) {
      // The directory itself must be the bare repository: git would otherwise find one above it.
      const where = await run.exec(dir, ['rev-parse', '--is-bare-repository', '--absolute-git-dir']);
      const [bare, gitDir] = where.stdout.toString('utf8').split('\n');
      if (where.code !== 0 || bare !== 'true' || gitDir !== realpathSync(dir)) return null;
      const res = await run.exec(dir, ['config', '--get', 'remote.origin.url']);
      return res.code === 0 ? res.stdout.toString('utf8').trim() : null;
    },
    async create(dir, url) {
      mkdirSync(dirname(dir), { recursive: true });
      await run.ok(dirname(dir), ['init', '--quiet', '--bare', '--', basename(dir)]);
      // The URL has no credential in it (the caller refuses one): the config on disk holds none.
      await run.ok(dir, ['config', 'remote.origin.url', url]);
      // Every fetch names its refspecs; a bare `git fetch` by hand fetches nothing surprising.
      await run.ok(dir, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/heads/*']);
    },
    async fetch(dir, refs, cred) {
      for (const ref of refs)
        if (!isPlainRef(ref)) throw new GitError('fetch', [ref], null, `not a plain ref name: ${ref}`);
      const url = (await run.ok(dir, ['config', '--get', 'remote.origin.url'])).toString('utf8').trim();
      const args = [
        // A stalled connection would hold the mirror's lock for good: under 1 KB/s for two minutes ends it.
        '-c',
        'http.lowSpeedLimit=1000',
        '-c',
        'http.lowSpeedTime=120',
        'fetch',
        '--quiet',
        '--no-tags',
        '--prune',
        '--no-write-fetch-head',
        'origin',
        '+refs/heads/*:refs/heads/*',
        ...refs.map((r) => `+${r}:${r}`),
      ];
      await run.ok(dir, args, cred ? { env: credentialEnv(url, cred) } : {});
    },
  };
}
