/**
 * Which public keys `verify` trusts when no --key is given: the keys listed
 * in the config's `keys:` at a trusted commit (the record's base by default,
 * or --keys-from), plus `.revloop/keys/*.pub` on this machine. A local key
 * file that the checked-out change itself adds (tracked at HEAD, absent or
 * different at the trusted commit) is never trusted: a change cannot vouch
 * for its own record.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_NAMES } from '../core/config-names.js';
import type { Git } from '../ports/git.js';
import type { Verifier } from '../ports/signer.js';
import { fastConfigKeys } from './config-keys.js';
import { verifierFromPem } from './keys.js';

export { CONFIG_NAMES };

export interface TrustedKeys {
  verifiers: Verifier[];
  /** Where each key came from (`<sha7>:<path>` or a local path), for messages. */
  sources: string[];
  /** Keys named but unusable (missing at the commit, not a key), for messages. */
  skipped: string[];
}

/**
 * The config's `keys:` at `sha`, read without validating the rest (verify
 * stays light). `configPath` (the record's) is tried first, then the default names.
 */
export async function configKeysAt(
  git: Git,
  root: string,
  sha: string,
  configPath?: string,
): Promise<string[]> {
  const names = configPath ? [configPath, ...CONFIG_NAMES.filter((n) => n !== configPath)] : CONFIG_NAMES;
  for (const name of names) {
    const bytes = await git.readFile(root, sha, name);
    if (!bytes) continue;
    const text = bytes.toString('utf8');
    let value: unknown;
    try {
      if (name.endsWith('.json')) value = JSON.parse(text);
      else {
        const fast = fastConfigKeys(text);
        // yaml is loaded only when the fast reader cannot tell: it costs more start-up than node itself.
        value = fast ? { keys: fast } : (await import('yaml')).parse(text);
      }
    } catch {
      return [];
    }
    const keys = (value as { keys?: unknown } | null)?.keys;
    return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
  }
  return [];
}

/**
 * Trusted verifiers: config keys at `trustSha` plus local keys the checked-out
 * change did not add. `root` and `head` may still be in flight: the config is
 * read through `repo` meanwhile (every read is a git process, so overlap pays).
 */
export async function trustedKeys(
  git: Git,
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
    pems: await Promise.all(listed.map((path) => git.readFile(repo, trustSha, path))),
  }));
  const localP = (async () => {
    const [root, head] = await Promise.all([at.root, at.head]);
    let local: string[] = [];
    try {
      local = readdirSync(join(root, '.revloop', 'keys'))
        .filter((f) => f.endsWith('.pub'))
        .sort();
    } catch {
      // No local keys directory.
    }
    return Promise.all(
      local.map(async (f) => {
        const rel = `.revloop/keys/${f}`;
        const atHead = await git.readFile(root, head, rel);
        const atTrust = atHead ? await git.readFile(root, trustSha, rel) : null;
        return { rel, abs: join(root, rel), atHead, atTrust };
      }),
    );
  })();
  const [{ listed, pems: fromConfig }, fromLocal] = await Promise.all([configP, localP]);
  listed.forEach((path, i) => {
    const pem = fromConfig[i];
    if (pem) add(pem, `${trustSha.slice(0, 7)}:${path}`);
    else out.skipped.push(`${trustSha.slice(0, 7)}:${path} (absent)`);
  });
  for (const { rel, abs, atHead, atTrust } of fromLocal) {
    // A key file the checked-out change adds or edits is the change vouching for itself.
    if (atHead && !atTrust?.equals(atHead)) {
      out.skipped.push(`${rel} (added or changed by the change under review)`);
      continue;
    }
    add(readFileSync(abs), rel);
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
