/**
 * The refs fix bundles were imported into (`refs/revloop/imports/<run>/<commit>`,
 * bundle.ts). They keep a run's fix commits reachable while another machine's
 * run may still need them here; once the run has ended they only keep objects
 * from git's gc (the run's own ref and `--apply` keep what lands), so `gc`
 * drops them.
 */
import { createRunner } from './run.js';

const PREFIX = 'refs/revloop/imports/';

/** Deletes the import refs of the runs `live` says are over; returns the refs deleted. */
export async function forgetImports(repo: string, live: (runId: string) => boolean): Promise<string[]> {
  const run = createRunner();
  const out = await run.ok(repo, ['for-each-ref', '--format=%(refname)', PREFIX]);
  const doomed = out
    .toString('utf8')
    .split('\n')
    .filter((ref) => ref.startsWith(PREFIX))
    .filter((ref) => !live(ref.slice(PREFIX.length).split('/')[0] ?? ''));
  if (doomed.length === 0) return [];
  // One transaction; `delete` with no old value removes whatever the ref holds.
  await run.ok(repo, ['update-ref', '--stdin'], { input: doomed.map((r) => `delete ${r}\n`).join('') });
  return doomed;
}
