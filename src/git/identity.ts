/**
 * A repository's identity across machines: the origin remote's URL (without
 * credentials or a trailing .git), else its local path. Admission keys use it,
 * so two CI runners with different checkout paths admit one run.
 */
import { createRunner } from './run.js';

export async function repoIdentity(root: string): Promise<string> {
  const res = await createRunner().exec(root, ['config', '--get', 'remote.origin.url']);
  const url = res.code === 0 ? res.stdout.toString('utf8').trim() : '';
  if (!url) return `file://${root}`;
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
}

/** The branch HEAD points at (e.g. `feature/x`), or null when HEAD is detached. */
export async function currentBranch(root: string): Promise<string | null> {
  const res = await createRunner().exec(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const name = res.code === 0 ? res.stdout.toString('utf8').trim() : '';
  return name || null;
}
