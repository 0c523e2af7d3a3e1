/**
 * Fetching a forge's refs into the served clone: `git fetch` from a
 * configured remote, forced into refs revloop names (never a branch the user
 * has checked out), with no hooks, no tags, no submodules and objects checked
 * on arrival. The remote's refs are what the forge says now, so a late
 * delivery fetches the live head, never an older one.
 */
import type { Git } from '../ports/git.js';
import type { GitRunner } from './run.js';

/**
 * Fetching objects into the repository: no hooks (reference-transaction), no
 * background gc or maintenance, objects checked on arrival. Shared by the
 * pull request fetch and the import of a fix bundle (bundle.ts).
 */
export const FETCH_CONFIG: readonly string[] = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'fetch.fsckObjects=true',
];

/** A refspec `+refs/…:refs/revloop/…` or `…:refs/remotes/…`: the destination is always revloop's or a remote-tracking ref. */
const REFSPEC = /^\+?refs\/[A-Za-z0-9._/-]+:refs\/(revloop|remotes)\/[A-Za-z0-9._/-]+$/;
const REMOTE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function fetchOps(run: GitRunner): Pick<Git, 'fetchRefs'> {
  return {
    async fetchRefs(repo, remote, refspecs) {
      if (!REMOTE.test(remote)) throw new Error(`not a remote name: ${remote}`);
      for (const r of refspecs)
        if (!REFSPEC.test(r) || r.includes('..')) throw new Error(`not a revloop refspec: ${r}`);
      await run.ok(repo, [
        ...FETCH_CONFIG,
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--no-recurse-submodules',
        '--end-of-options',
        remote,
        ...refspecs,
      ]);
    },
  };
}
