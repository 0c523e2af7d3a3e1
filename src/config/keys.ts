/**
 * The config's `keys:` at a commit, for `verify`: read without validating the
 * rest, and without loading zod or (on the fast path) the yaml package, so
 * verify stays light. The fast path is the same reader's answer: where it
 * answers, the yaml package answers the same (test/config/fast-keys.*).
 */
import type { GitBlobs } from '../ports/git.js';
import { fastConfigKeys } from './fast-keys.js';
import { CONFIG_NAMES, configFileAt } from './locate.js';

/**
 * The `keys:` list at `sha` ([] when the file lists none, holds no list of
 * strings or does not parse). `configPath` (the record's) is tried first,
 * then the default names.
 */
export async function configKeysAt(
  git: GitBlobs,
  root: string,
  sha: string,
  configPath?: string,
): Promise<string[]> {
  const names = configPath ? [configPath, ...CONFIG_NAMES.filter((n) => n !== configPath)] : CONFIG_NAMES;
  const file = await configFileAt(git, root, sha, names);
  if (!file) return [];
  const text = file.bytes.toString('utf8');
  try {
    if (file.name.endsWith('.json')) return keysOf(JSON.parse(text));
    // The yaml package is loaded only when the fast path cannot tell: it costs more start-up than node itself.
    return (
      fastConfigKeys(text) ?? keysOf((await import('./document.js')).readConfigDocument(text, file.name))
    );
  } catch {
    return [];
  }
}

const keysOf = (doc: unknown): string[] => {
  const keys = (doc as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [];
};
