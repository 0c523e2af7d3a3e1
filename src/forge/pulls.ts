/**
 * The open pull (merge) requests of a repository and their live heads: what
 * the service's reconciler compares with what was admitted, since GitHub
 * never retries a delivery that failed.
 */
import { ForgeRefusedError } from './errors.js';
import type { ForgeName } from './types.js';

export interface OpenPull {
  number: number;
  head: string;
  baseBranch: string;
  draft: boolean;
  author: string | null;
  /** The author is an app or a bot account (GitHub's `type: Bot`, GitLab's `bot` flag). */
  authorIsBot: boolean;
}

export interface RepositoryTarget {
  forge: ForgeName;
  /** GitHub owner/name; GitLab the project's id or path. */
  repository: string;
  apiUrl: string;
  token: string;
}

const refused = (what: string, err: unknown): ForgeRefusedError => {
  const e = err as { status?: number; cause?: { response?: { status?: number } }; message?: string };
  const status = e.status ?? e.cause?.response?.status ?? null;
  return new ForgeRefusedError(status, what, String(e.message ?? err).split('\n')[0] ?? '', 0);
};

/** Client tuning that tests shrink (index.ts ClientTuning). */
interface Tuning {
  retryAfterUnitMs?: number;
  paceWrites?: boolean;
  retries?: number;
}

export async function listOpenPulls(t: RepositoryTarget, tuning: Tuning = {}): Promise<OpenPull[]> {
  if (t.forge === 'github') {
    const { githubClient } = await import('./github/client.js');
    const [owner, repo] = t.repository.split('/') as [string, string];
    const gh = githubClient({ token: t.token, baseUrl: t.apiUrl, ...tuning });
    try {
      const pulls = await gh.paginate(gh.pulls.list, { owner, repo, state: 'open', per_page: 100 });
      return pulls.map((p) => ({
        number: p.number,
        head: p.head.sha,
        baseBranch: p.base.ref,
        draft: p.draft === true,
        author: p.user?.login ?? null,
        authorIsBot: p.user?.type === 'Bot',
      }));
    } catch (err) {
      throw refused(`GET /repos/${t.repository}/pulls (list the open pull requests)`, err);
    }
  }
  const { Gitlab } = await import('@gitbeaker/rest');
  const api = new Gitlab({ host: t.apiUrl.replace(/\/api\/v4\/?$/, ''), token: t.token });
  try {
    const mrs = (await api.MergeRequests.all({ projectId: t.repository, state: 'opened' })) as {
      iid: number;
      sha: string;
      target_branch: string;
      draft?: boolean;
      work_in_progress?: boolean;
      author?: { username?: string; bot?: boolean } | null;
    }[];
    return mrs.map((m) => ({
      number: m.iid,
      head: m.sha,
      baseBranch: m.target_branch,
      draft: m.draft === true || m.work_in_progress === true,
      author: m.author?.username ?? null,
      authorIsBot: m.author?.bot === true,
    }));
  } catch (err) {
    throw refused(`GET /projects/${t.repository}/merge_requests (list the open merge requests)`, err);
  }
}
