/**
 * Which public keys `verify` trusts when no --key is given: the keys listed
 * in the config's `keys:` at a trusted commit (--keys-from, else the
 * checkout's default trusted ref), plus `.revloop/keys/*.pub` on this machine. No symlink is
 * followed on the way to a key (a listed key whose entry is a link, a
 * `.revloop` or key file that is one), and a local key that the checked-out
 * change brings under any path (compared by key id with every key file it
 * adds or changes) is never trusted: a change cannot vouch for its own record.
 */

import { closeSync, constants, type Dirent, lstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configKeysAt } from '../config/keys.js';
import type { GitBlobs, GitDiffs } from '../ports/git.js';
import type { Verifier } from '../ports/signer.js';
import { verifierFromPem } from './keys.js';

export interface TrustedKeys {
  verifiers: Verifier[];
  /** Where each key came from (`<sha7>:<path>` or a local path), for messages. */
  sources: string[];
  /** Keys named but unusable (missing at the commit, not a key), for messages. */
  skipped: string[];
}

/**
 * Trusted verifiers: config keys at `trustSha` plus local keys the checked-out
 * change did not add. `root` and `head` may still be in flight: the config is
 * read through `repo` meanwhile (every read is a git process, so overlap pays).
 */
export async function trustedKeys(
  git: GitBlobs & GitDiffs,
  at: {
    repo: string;
    root: string | Promise<string>;
    head: string | Promise<string>;
    trustSha: string;
    configPath?: string | undefined;
  },
): Promise<TrustedKeys> {
  const { repo, trustSha } = at;
  const out: TrustedKeys = { verifiers: [], sources: [], skipped: [] };
  const add = (pem: Uint8Array, source: string) => {
    try {
      out.verifiers.push(verifierFromPem(pem, source));
      out.sources.push(source);
    } catch {
      out.skipped.push(`${source} (not an Ed25519 public key)`);
    }
  };
  const configP = configKeysAt(git, repo, trustSha, at.configPath).then(async (listed) => ({
    listed,
    pems: await Promise.all(listed.map((path) => configKeyAt(git, repo, trustSha, path))),
  }));
  const localP = localKeys(at, out.skipped);
  const [{ listed, pems: fromConfig }, fromLocal] = await Promise.all([configP, localP]);
  listed.forEach((path, i) => {
    const pem = fromConfig[i];
    const source = `${trustSha.slice(0, 7)}:${path}`;
    if (pem === 'symlink') out.skipped.push(`${source} (a symlink: never followed)`);
    else if (pem) add(pem, source);
    else out.skipped.push(`${source} (absent)`);
  });
  const brought = fromLocal.length > 0 ? await keysTheChangeBrings(git, at) : new Set<string>();
  for (const { rel, pem } of fromLocal) {
    // A key the checked-out change brings, under whatever path, is the change vouching for itself.
    if (brought.has(keyIdOfPem(pem) ?? '')) {
      out.skipped.push(`${rel} (added or changed by the change under review)`);
      continue;
    }
    add(pem, rel);
  }
  // The same key listed twice is one key.
  const seen = new Set<string>();
  const keep = out.verifiers.map((v) => {
    if (seen.has(v.keyId)) return false;
    seen.add(v.keyId);
    return true;
  });
  out.verifiers = out.verifiers.filter((_, i) => keep[i]);
  out.sources = out.sources.filter((_, i) => keep[i]);
  return out;
}

/** A listed key's bytes at the trusted commit; 'symlink' for a link entry (never followed), null when absent. */
async function configKeyAt(
  git: GitBlobs,
  repo: string,
  sha: string,
  path: string,
): Promise<Buffer | 'symlink' | null> {
  const [entries, pem] = await Promise.all([
    git.treeEntries ? git.treeEntries(repo, sha, path).catch(() => []) : [],
    git.readFile(repo, sha, path),
  ]);
  if (entries.some((e) => e.path === path && e.mode === SYMLINK_MODE)) return 'symlink';
  return pem;
}

const SYMLINK_MODE = '120000';

/**
 * The machine's own keys, `.revloop/keys/*.pub`, read without following a
 * link anywhere on the way: a `.revloop` or `keys` that is a symlink, or a key
 * file that is one, is what a change that commits links would point here.
 */
async function localKeys(
  at: { root: string | Promise<string> },
  skipped: string[],
): Promise<{ rel: string; pem: Buffer }[]> {
  const root = await at.root;
  for (const rel of ['.revloop', '.revloop/keys']) {
    let link = false;
    try {
      link = lstatSync(join(root, rel)).isSymbolicLink();
    } catch {
      return [];
    }
    if (link) {
      skipped.push(`${rel} (a symlink: never followed)`);
      return [];
    }
  }
  const out: { rel: string; pem: Buffer }[] = [];
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(join(root, '.revloop', 'keys'), { withFileTypes: true });
  } catch {
    return [];
  }
  for (const e of entries.filter((d) => d.name.endsWith('.pub')).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = `.revloop/keys/${e.name}`;
    if (!e.isFile()) {
      skipped.push(`${rel} (${e.isSymbolicLink() ? 'a symlink: never followed' : 'not a file'})`);
      continue;
    }
    try {
      out.push({ rel, pem: readFileNoFollow(join(root, rel)) });
    } catch {
      skipped.push(`${rel} (unreadable)`);
    }
  }
  return out;
}

/** Reads a file, refusing a symlink in its last component (swapped in after the listing). */
export function readFileNoFollow(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A key file's key id, or null when it is no public key. */
function keyIdOfPem(pem: Uint8Array): string | null {
  try {
    return verifierFromPem(pem, '').keyId;
  } catch {
    return null;
  }
}

/** Small enough to be a key file; anything larger is never one. */
const KEY_FILE_MAX_BYTES = 16 * 1024;

/**
 * The ids of the public keys in files the checked-out commit adds or changes
 * against the trusted commit, whatever their path: compared by key, not by
 * file name, so a key the change commits anywhere (and a link or copy makes
 * local) is never trusted.
 */
async function keysTheChangeBrings(
  git: GitBlobs & GitDiffs,
  at: { repo: string; head: string | Promise<string>; trustSha: string },
): Promise<Set<string>> {
  const ids = new Set<string>();
  if (!git.changedBlobs) return ids;
  const head = await at.head;
  const files = (await git.changedBlobs(at.repo, at.trustSha, head)).filter((f) => f.mode !== SYMLINK_MODE);
  const sizes = await git.blobSizes(
    at.repo,
    head,
    files.map((f) => ({ path: f.path, blob: f.oid })),
  );
  const small = files.filter((f) => (sizes.get(f.path) ?? KEY_FILE_MAX_BYTES + 1) <= KEY_FILE_MAX_BYTES);
  const blobs = await Promise.all(small.map((f) => git.readFile(at.repo, head, f.path, f.oid)));
  for (const b of blobs) {
    const id = b?.includes('PUBLIC KEY') ? keyIdOfPem(b) : null;
    if (id) ids.add(id);
  }
  return ids;
}
