/**
 * Where a repository's revloop config lives, and finding it: at a commit
 * (through the Git port) or in the working tree. Imports nothing heavy, so
 * `verify` can use it without loading zod or the yaml package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitBlobs } from '../ports/git.js';

/** The names a config is looked for under, in this order. */
export const CONFIG_NAMES = ['revloop.config.yaml', 'revloop.config.yml', 'revloop.config.json'] as const;

/** A config file found: the name it was found under and its bytes. */
export interface ConfigFile {
  name: string;
  bytes: Buffer;
}

/** The first of `names` present at `commit` (read one after another, in order), or null. */
export async function configFileAt(
  git: GitBlobs,
  repo: string,
  commit: string,
  names: readonly string[] = CONFIG_NAMES,
): Promise<ConfigFile | null> {
  for (const name of names) {
    const bytes = await git.readFile(repo, commit, name);
    if (bytes) return { name, bytes };
  }
  return null;
}

/** The first of the config names present in the working tree at `root`, or null. */
export function configFileInTree(root: string): ConfigFile | null {
  for (const name of CONFIG_NAMES) {
    const path = join(root, name);
    if (existsSync(path)) return { name, bytes: readFileSync(path) };
  }
  return null;
}
