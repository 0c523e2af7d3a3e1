/** Publication of a run to a forge (DESIGN.md, invariant 17). */
import type { ForgeAdapter } from './adapter.js';
import { githubAdapter } from './github/index.js';
import type { ForgeTarget } from './target.js';

export { ForgeRefusedError, ForgeTargetError } from './errors.js';
export { DEFAULT_PUBLISH_OPTIONS, type PublishResult, publishRun } from './publish.js';
export { listOpenPulls, type OpenPull, type RepositoryTarget } from './pulls.js';
export { type ForgeTarget, resolveTarget, type TargetFlags } from './target.js';
export type { PublishOptions } from './types.js';

/** Client tuning that tests shrink; production uses the defaults. */
export interface ClientTuning {
  retryAfterUnitMs?: number;
  paceWrites?: boolean;
  retries?: number;
}

export async function forgeAdapter(t: ForgeTarget, tuning: ClientTuning = {}): Promise<ForgeAdapter> {
  if (t.forge === 'github') {
    const [owner, repo] = t.repository.split('/') as [string, string];
    return githubAdapter({ owner, repo, pull: t.number }, { token: t.token, baseUrl: t.apiUrl, ...tuning });
  }
  const { gitlabAdapter } = await import('./gitlab/index.js');
  return gitlabAdapter(
    { project: t.repository, mr: t.number },
    { token: t.token, apiUrl: t.apiUrl, ...tuning },
  );
}
