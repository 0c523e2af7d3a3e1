/**
 * The shared per-repository mirror against a real git host on loopback
 * (`git http-backend` behind Basic auth): the credential reaches the server
 * and nowhere else (no file of the mirror, no argument git was given), fetches
 * of one repository by concurrent callers never overlap, and the byte and
 * idle bounds remove the least recently used mirrors that nobody holds.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { GitError } from '../../src/git/errors.js';
import { createGit } from '../../src/git/index.js';
import { tryLaneLock } from '../../src/loop/checkout/pool/lane-lock.js';
import { githubAccess, webUrlOf } from '../../src/serve/github-access.js';
import { mirrorPath, pruneIdleMirrors, syncMirror } from '../../src/serve/mirror.js';
import { makeRepo, TEST_GIT_ENV, type TestRepo } from '../helpers/git-repo.js';
import { LoopbackGitHttp } from './loopback-git-http.js';

const require = createRequire(import.meta.url);
const TOKEN = 'ghs_mirrorSecretToken0123456789';
const USER = 'x-access-token';
const cred = { username: USER, password: TOKEN };
const DAY = 86_400_000;

let work: TestRepo;
let tmp: string;
let host: LoopbackGitHttp;
let gitLog: string;
let gitPath: string;
let head: string;

const gitOpts = () => ({ gitPath, env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });

/** Publishes the work repository as `<project root>/<name>.git`, with a pull request's head ref. */
function publish(name: string): string {
  const bare = join(tmp, 'host', `${name}.git`);
  rmSync(bare, { recursive: true, force: true });
  mkdirSync(join(tmp, 'host', name.split('/')[0] as string), { recursive: true });
  execFileSync('git', ['clone', '--quiet', '--bare', work.dir, bare], { env: TEST_GIT_ENV });
  execFileSync('git', ['-C', bare, 'update-ref', 'refs/pull/7/head', head], { env: TEST_GIT_ENV });
  return `${host.url}/${name}.git`;
}

/** Every byte of every file under `dir`. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'revloop-mirror-'));
  work = await makeRepo();
  work.write('a.txt', 'one\n');
  work.commit('base');
  work.git(['checkout', '-q', '-b', 'topic']);
  work.write('a.txt', 'two\n');
  head = work.commit('change');
  work.git(['checkout', '-q', 'main']);
  host = await new LoopbackGitHttp(join(tmp, 'host'), USER, TOKEN).start();
  // git as revloop starts it, through a wrapper that logs each process's arguments
  // (what `ps` shows) and when it starts and ends.
  gitLog = join(tmp, 'git-argv.log');
  gitPath = join(tmp, 'git-logged');
  writeFileSync(
    gitPath,
    `#!/bin/sh\nprintf 'start %s %s\\n' "$$" "$*" >> '${gitLog}'\ngit "$@"\nrc=$?\nprintf 'end %s\\n' "$$" >> '${gitLog}'\nexit $rc\n`,
  );
  chmodSync(gitPath, 0o755);
});

afterAll(async () => {
  await host.stop();
  await work.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the shared mirror', () => {
  it('fetches branches and the pull request head with the token in the environment only', async () => {
    const url = publish('acme/widgets');
    const root = join(tmp, 'mirrors-a');
    writeFileSync(gitLog, '');
    const { dir } = await syncMirror(
      { root, git: gitOpts() },
      { url, refs: ['refs/pull/7/head'], credential: cred, now: 0 },
    );
    expect(dir).toBe(mirrorPath(root, url));
    const refs = execFileSync('git', ['-C', dir, 'for-each-ref', '--format=%(refname) %(objectname)'], {
      env: TEST_GIT_ENV,
    }).toString();
    expect(refs).toContain(`refs/pull/7/head ${head}`);
    expect(refs).toContain(`refs/heads/topic ${head}`);
    expect(refs).toContain('refs/heads/main ');
    // The server saw the credential on the fetch's requests.
    expect(host.requests.some((r) => r.authorized && r.path.endsWith('/git-upload-pack'))).toBe(true);

    const secretForms = [TOKEN, Buffer.from(`${USER}:${TOKEN}`).toString('base64')];
    const files = filesUnder(root);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files)
      for (const s of secretForms) expect(f.bytes.includes(s), `${f.path} holds the token`).toBe(false);
    const argv = readFileSync(gitLog, 'utf8');
    expect(argv).toMatch(
      /start \d+ -C \S+ -c http.lowSpeedLimit=1000 -c http.lowSpeedTime=120 fetch --quiet --no-tags --prune/,
    );
    for (const s of secretForms) expect(argv).not.toContain(s);
    // The mirror's config names the URL as given: the runs' repository identity, with no credential.
    expect(
      execFileSync('git', ['-C', dir, 'config', 'remote.origin.url'], { env: TEST_GIT_ENV })
        .toString()
        .trim(),
    ).toBe(url);
  });

  it('a wrong token is a git error that names neither token', async () => {
    const url = publish('acme/widgets');
    const err = await syncMirror(
      { root: join(tmp, 'mirrors-b'), git: gitOpts() },
      { url, credential: { username: USER, password: 'ghs_wrongToken' }, now: 0 },
    ).then(
      () => new Error('the fetch succeeded'),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(GitError);
    expect(err.message).toMatch(/fetch/);
    expect(err.message).not.toContain('ghs_wrongToken');
    expect(err.message).not.toContain(TOKEN);
  });

  const refusedUrls: [string, RegExp][] = [
    [`http://${USER}:${TOKEN}@127.0.0.1/acme/widgets.git`, /carries a credential/],
    ['ssh://git@github.com/acme/widgets.git', /ssh: URLs are not fetched/],
    ['file:///etc', /file: URLs are not fetched/],
    ['not a url', /is not a URL/],
  ];
  it.each(refusedUrls)('refuses the clone URL %s before git runs', async (url, message) => {
    const err = await syncMirror({ root: join(tmp, 'mirrors-c') }, { url, now: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain(TOKEN);
  });

  it('refuses a ref that is refspec syntax rather than a name', async () => {
    const url = publish('acme/widgets');
    await expect(
      syncMirror(
        { root: join(tmp, 'mirrors-c'), git: gitOpts() },
        { url, refs: ['+refs/*:refs/*'], credential: cred, now: 0 },
      ),
    ).rejects.toThrow(/not a plain ref name/);
  });

  it('concurrent fetches of one repository take turns under its lock and share one mirror', async () => {
    const url = publish('acme/widgets');
    const root = join(tmp, 'mirrors-d');
    writeFileSync(gitLog, '');
    const all = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        syncMirror({ root, git: gitOpts() }, { url, refs: ['refs/pull/7/head'], credential: cred, now: i }),
      ),
    );
    expect(new Set(all.map((s) => s.dir)).size).toBe(1);
    expect(readdirSync(root).filter((n) => n.endsWith('.git'))).toHaveLength(1);
    // Read from the log's order alone: no fetch starts while another is under way.
    const fetching = new Set<string>();
    const isFetch = new Map<string, boolean>();
    let overlaps = 0;
    let fetches = 0;
    for (const line of readFileSync(gitLog, 'utf8').split('\n').filter(Boolean)) {
      const [kind, pid, ...args] = line.split(' ') as [string, string, ...string[]];
      if (kind === 'start') {
        const fetch = args.includes('fetch');
        isFetch.set(pid, fetch);
        if (fetch) {
          fetches++;
          if (fetching.size > 0) overlaps++;
          fetching.add(pid);
        }
      } else if (isFetch.get(pid)) fetching.delete(pid);
    }
    expect(fetches).toBe(4);
    expect(overlaps).toBe(0);
  });

  it('keeps all mirrors under the byte bound by removing the least recently used one nobody holds', async () => {
    const root = join(tmp, 'mirrors-e');
    const a = await syncMirror(
      { root, git: gitOpts() },
      { url: publish('acme/a'), credential: cred, now: 1 * DAY },
    );
    const b = await syncMirror(
      { root, git: gitOpts() },
      { url: publish('acme/b'), credential: cred, now: 2 * DAY },
    );
    expect(b.evicted).toEqual([]);
    // A bound that holds two mirrors but not three: the third evicts the one used longest ago (a).
    const one = sizeOf(a.dir);
    const c = await syncMirror(
      { root, git: gitOpts(), maxBytes: Math.floor(one * 2.5) },
      { url: publish('acme/c'), credential: cred, now: 3 * DAY },
    );
    expect(c.evicted).toEqual([a.dir]);
    // A mirror whose lock is held (a fetch under way) is skipped: the next one by age goes instead.
    const lock = tryLaneLock(`${b.dir}.lock`);
    try {
      const d = await syncMirror(
        { root, git: gitOpts(), maxBytes: Math.floor(one * 2.5) },
        { url: publish('acme/d'), credential: cred, now: 4 * DAY },
      );
      expect(d.evicted).toEqual([c.dir]);
    } finally {
      lock?.release();
    }
    expect(
      readdirSync(root)
        .filter((n) => n.endsWith('.git'))
        .sort(),
    ).toEqual(
      [b.dir, mirrorPath(root, `${host.url}/acme/d.git`)].map((p) => p.slice(root.length + 1)).sort(),
    );
  });

  it('gc removes mirrors unused for longer than the idle bound, keeping held and recent ones', async () => {
    const root = join(tmp, 'mirrors-f');
    const old = await syncMirror(
      { root, git: gitOpts() },
      { url: publish('acme/old'), credential: cred, now: 0 },
    );
    const busy = await syncMirror(
      { root, git: gitOpts() },
      { url: publish('acme/busy'), credential: cred, now: 0 },
    );
    const fresh = await syncMirror(
      { root, git: gitOpts() },
      { url: publish('acme/fresh'), credential: cred, now: 20 * DAY },
    );
    const lock = tryLaneLock(`${busy.dir}.lock`);
    try {
      expect(pruneIdleMirrors(root, 20 * DAY, 14 * DAY)).toEqual({ removed: [old.dir], held: [busy.dir] });
    } finally {
      lock?.release();
    }
    expect(readdirSync(root).filter((n) => n.endsWith('.git'))).toHaveLength(2);
    expect(statSync(fresh.dir).isDirectory()).toBe(true);
    // Used again, a mirror starts a new idle period.
    await syncMirror(
      { root, git: gitOpts() },
      { url: publish('acme/busy'), credential: cred, now: 30 * DAY },
    );
    expect(pruneIdleMirrors(root, 40 * DAY, 14 * DAY).removed).toEqual([fresh.dir]);
  });

  it('a mirror left half-made (no origin) is made again', async () => {
    const url = publish('acme/widgets');
    const root = join(tmp, 'mirrors-g');
    const dir = mirrorPath(root, url);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'HEAD'), 'garbage');
    await syncMirror({ root, git: gitOpts() }, { url, refs: ['refs/pull/7/head'], credential: cred, now: 0 });
    expect(
      execFileSync('git', ['-C', dir, 'rev-parse', 'refs/pull/7/head'], { env: TEST_GIT_ENV })
        .toString()
        .trim(),
    ).toBe(head);
  });
});

describe('a fetch that dies holding the lock', () => {
  it('keeps others out while it lives, and frees the mirror the moment it is killed', async () => {
    const url = publish('acme/widgets');
    const root = join(tmp, 'mirrors-i');
    const dir = mirrorPath(root, url);
    mkdirSync(root, { recursive: true });
    // Another worker's fetch: it takes the mirror's lock as syncMirror does, then hangs.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
         const db = new D(${JSON.stringify(`${dir}.lock`)}, { timeout: 0 });
         db.exec('BEGIN EXCLUSIVE');
         process.stdout.write('held\\n');
         setInterval(() => {}, 1e6);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((ok, fail) => {
      holder.stdout.on('data', (d: Buffer) => d.toString().includes('held') && ok());
      holder.on('exit', (c) => fail(new Error(`the holder exited (${c}) before it held the lock`)));
    });
    try {
      await expect(
        syncMirror({ root, git: gitOpts(), lockWaitMs: 100 }, { url, credential: cred, now: 0 }),
      ).rejects.toThrow(/another fetch held .* for over 0\.1s/);
    } finally {
      const gone = new Promise((r) => holder.on('exit', r));
      holder.kill('SIGKILL');
      await gone;
    }
    const { dir: synced } = await syncMirror(
      { root, git: gitOpts(), lockWaitMs: 100 },
      { url, credential: cred, now: 1 },
    );
    expect(synced).toBe(dir);
  });
});

describe('the mirror and the ledger name a repository the same way', () => {
  it('the identity of runs admitted from the mirror is the one comment commands check against', async () => {
    publish('acme/widgets');
    const access = githubAccess(
      { kind: 'token', token: TOKEN, repo: 'acme/widgets', apiUrl: 'http://127.0.0.1:9/api/v3' },
      { now: () => 0 },
      { webUrl: host.url },
    );
    const { dir } = await syncMirror(
      { root: join(tmp, 'mirrors-h'), git: gitOpts() },
      {
        url: access.cloneUrl('acme/widgets'),
        credential: await access.fetchCredential('acme/widgets'),
        now: 0,
      },
    );
    expect(await createGit({ env: gitOpts().env }).identity(dir)).toBe(access.identity('acme/widgets'));
    expect(access.identity('acme/widgets')).toBe(`${host.url}/acme/widgets`);
  });

  it.each([
    ['https://api.github.com', 'https://github.com'],
    ['https://ghe.example.com/api/v3', 'https://ghe.example.com'],
    ['http://127.0.0.1:8080/api/v3/', 'http://127.0.0.1:8080'],
  ])('the web host of %s is %s', (api, web) => {
    expect(webUrlOf(api)).toBe(web);
  });
});

function sizeOf(dir: string): number {
  return filesUnder(dir).reduce((n, f) => n + f.bytes.length, 0);
}
