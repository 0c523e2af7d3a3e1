/**
 * What git keeps in a checkout's `.git` (a directory, or a `gitdir:` file for
 * a linked worktree), read from the files without starting a git process:
 * the common git dir and where hooks live. Everything that reads git's own
 * files lives in git/.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { RevloopError } from '../core/errors.js';

/** The common git dir of a checkout, read from its `.git` without a git process; null if it has none. */
export function commonGitDir(repoRoot: string): string | null {
  const dotGit = join(repoRoot, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const gitDir = resolve(
      repoRoot,
      readFileSync(dotGit, 'utf8')
        .replace(/^gitdir: /, '')
        .trim(),
    );
    try {
      return resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
    } catch {
      return gitDir;
    }
  } catch {
    return null;
  }
}

/**
 * Where git looks for hooks: core.hooksPath (relative to the work tree) when
 * set in the repository's config, else <common git dir>/hooks. Read from
 * git's files, not by running git; a core.hooksPath set only in the global
 * config is not seen.
 */
export function hooksDir(root: string): string {
  const common = commonGitDir(root);
  if (!common)
    throw new RevloopError(
      'not_a_repository',
      `${join(root, '.git')} is neither a git dir nor a gitdir file`,
    );
  const configured = coreHooksPath(readFileSync(join(common, 'config'), 'utf8'));
  if (configured) return isAbsolute(configured) ? configured : resolve(root, configured);
  return join(common, 'hooks');
}

/** The last `hooksPath` of a `[core]` section in git config text, or null. */
export function coreHooksPath(config: string): string | null {
  let inCore = false;
  let found: string | null = null;
  for (const raw of config.split('\n')) {
    const line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\]/.exec(line);
    if (section) {
      inCore = section[1]?.toLowerCase() === 'core' && !section[2];
      continue;
    }
    const kv = /^hookspath\s*=\s*(.*)$/i.exec(line);
    if (inCore && kv?.[1] !== undefined) found = kv[1].replace(/^"(.*)"$/, '$1').trim();
  }
  return found;
}
