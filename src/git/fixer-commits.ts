/**
 * Commits a fixer made on its own in its checkout. Agent CLIs often commit
 * their edit; the controller takes such commits as the edit they hold, never
 * as commits: HEAD goes back to the revision and their tree stays in the index
 * and the files, so the controller's own commit (its identity, its message,
 * no hooks, no signature) holds them like any uncommitted edit, through the
 * same checks. Only history on top of the revision is taken.
 */
import { FixerHistoryError } from './errors.js';
import type { GitRunner } from './run.js';

const short = (sha: string) => sha.slice(0, 12);

/**
 * Moves the checkout's HEAD from `head` back to `revision` when `head`
 * descends from it through single-parent commits; FixerHistoryError when it
 * does not (nothing moved). `setHead` is the compare-and-swap of HEAD.
 */
export async function unwindFixerCommits(
  run: GitRunner,
  dir: string,
  revision: string,
  head: string,
  setHead: (dir: string, sha: string, expected: string) => Promise<void>,
): Promise<void> {
  const args = ['merge-base', '--is-ancestor', revision, head];
  const ancestor = await run.exec(dir, args);
  if (ancestor.code === 1)
    throw new FixerHistoryError(
      dir,
      revision,
      head,
      `HEAD ${short(head)} is not a descendant of the revision ${short(revision)} (an amend, a reset or a rebase); only commits on top of the revision are taken`,
    );
  if (ancestor.code !== 0) throw run.failure(dir, args, ancestor);
  const list = (await run.ok(dir, ['rev-list', '--parents', `${revision}..${head}`])).toString('utf8');
  for (const line of list.trim().split('\n')) {
    const [commit = '', ...parents] = line.split(' ');
    if (parents.length !== 1)
      throw new FixerHistoryError(
        dir,
        revision,
        head,
        `its commit ${short(commit)} is a merge, which brings in history besides its edit; only single-parent commits on top of the revision are taken`,
      );
  }
  await setHead(dir, revision, head);
}
