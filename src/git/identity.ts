/**
 * A repository's identity across machines, and the branch its checkout is
 * on: the Git port's `identity` and `currentBranch`.
 */
import type { Git } from '../ports/git.js';
import type { GitRunner } from './run.js';

/** The origin remote's URL without credentials or a trailing .git; `file://<root>` when there is none. */
export const identityFromRemote = (root: string, url: string): string =>
  url === ''
    ? `file://${root}`
    : url
        .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1')
        .replace(/\.git$/, '')
        .replace(/\/+$/, '');

export function identityOps(run: GitRunner): Pick<Git, 'identity' | 'currentBranch'> {
  return {
    async identity(root) {
      const res = await run.exec(root, ['config', '--get', 'remote.origin.url']);
      return identityFromRemote(root, res.code === 0 ? res.stdout.toString('utf8').trim() : '');
    },
    async currentBranch(root) {
      const res = await run.exec(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
      const name = res.code === 0 ? res.stdout.toString('utf8').trim() : '';
      return name || null;
    },
  };
}
