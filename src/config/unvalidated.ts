/**
 * The config parsed but not validated, for the machine-side keys (`store:`,
 * `pool:`) the composition root compares: at the trusted commit (admission
 * validates that config later, and says so with its key) and in the working
 * tree (the change's, only ever compared with the trusted choice). A file
 * that does not parse, or holds no mapping, reads as null.
 */
import type { GitBlobs } from '../ports/git.js';
import { readConfigMapping } from './document.js';
import { configFileAt, configFileInTree } from './locate.js';

/** The config at a commit, parsed but not validated. */
export async function configAt(
  git: GitBlobs,
  repoRoot: string,
  sha: string,
): Promise<Record<string, unknown> | null> {
  const file = await configFileAt(git, repoRoot, sha);
  return file && readConfigMapping(file.bytes.toString('utf8'), file.name);
}

/** The config in the working tree, parsed but not validated, and its file name. */
export function workingTreeConfig(
  repoRoot: string,
): { name: string; config: Record<string, unknown> } | null {
  const file = configFileInTree(repoRoot);
  const config = file && readConfigMapping(file.bytes.toString('utf8'), file.name);
  return file && config && { name: file.name, config };
}
