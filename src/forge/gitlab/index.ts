/** The GitLab forge (placeholder until the adapter lands). */
import type { ForgeAdapter } from '../adapter.js';

export interface GitLabTarget {
  project: string;
  mr: number;
}

export function gitlabAdapter(_t: GitLabTarget, _c: { token: string; apiUrl: string }): ForgeAdapter {
  throw new Error('GitLab publication is not built yet');
}
