/** The GitLab forge: not built yet; `--to gitlab` says so as a usage error (exit 2). */
import type { ForgeAdapter } from '../adapter.js';
import { ForgeTargetError } from '../errors.js';

export interface GitLabTarget {
  project: string;
  mr: number;
}

export function gitlabAdapter(_t: GitLabTarget, _c: { token: string; apiUrl: string }): ForgeAdapter {
  throw new ForgeTargetError(
    'publishing to GitLab is not available in this version (use --to github, or export --format rdjson with reviewdog)',
  );
}
