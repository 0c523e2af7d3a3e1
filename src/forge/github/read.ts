/**
 * Reads what a pull request holds of revloop's publications: its live head
 * (asked of the API just before writing, never taken from the event file),
 * the lines its diff accepts comments on, revloop's reviews and comments
 * (by their hidden markers, written by revloop's own identity), their
 * threads, and revloop's checks.
 */
import { type LineSpan, patchSpans } from '../diff-lines.js';
import { parseFindingMarker, parseRunMarker } from '../markers.js';
import type { ForgeCheck, ForgeState, ForgeThread } from '../types.js';
import type { GitHubClient } from './client.js';
import { refused } from './refused.js';

export interface GitHubTarget {
  owner: string;
  repo: string;
  pull: number;
}

export const CHECK_NAME = 'revloop';
export const EXTERNAL_ID = (runId: string): string => `revloop:${runId}`;

interface Author {
  login?: string;
  type?: string;
}

const THREADS = `query revloopThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved resolvedBy { login } comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}`;

interface ThreadsReply {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: {
          id: string;
          isResolved: boolean;
          resolvedBy: { login: string } | null;
          comments: { nodes: { databaseId: number }[] };
        }[];
      };
    } | null;
  } | null;
}

export interface GitHubRead {
  state: ForgeState;
  /** Set when checks were found only as commit statuses. */
  statusMode: boolean;
  headRepo: string | null;
}

export async function readGitHub(gh: GitHubClient, t: GitHubTarget): Promise<GitHubRead> {
  const at = { owner: t.owner, repo: t.repo, pull_number: t.pull };
  const where = `${t.owner}/${t.repo}#${t.pull}`;
  const pr = await gh.rest.pulls.get(at).catch(refused(`GET pull request ${where}`, 0));
  const head = pr.data.head.sha;
  const [files, viewer, reviews, comments] = await Promise.all([
    gh.paginate(gh.rest.pulls.listFiles, { ...at, per_page: 100 }).catch(refused(`GET files of ${where}`, 0)),
    gh.rest.users.getAuthenticated().then(
      (r) => r.data.login,
      // An installation token (GITHUB_TOKEN) has no user; its comments are authored by a bot.
      () => null,
    ),
    gh
      .paginate(gh.rest.pulls.listReviews, { ...at, per_page: 100 })
      .catch(refused(`GET reviews of ${where}`, 0)),
    gh
      .paginate(gh.rest.pulls.listReviewComments, { ...at, per_page: 100 })
      .catch(refused(`GET review comments of ${where}`, 0)),
  ]);
  const ours = (u: Author | null | undefined): boolean =>
    Boolean(u) && (viewer ? u?.login === viewer : u?.type === 'Bot');

  const commentable = new Map<string, LineSpan[]>();
  for (const f of files)
    if (f.patch && f.status !== 'removed') commentable.set(f.filename, patchSpans(f.patch));

  const summaries: ForgeState['summaries'] = [];
  for (const r of reviews) {
    const m = parseRunMarker(r.body);
    if (m && ours(r.user))
      summaries.push({ id: String(r.id), runId: m.runId, revision: m.revision, body: r.body ?? '' });
  }

  const threadOf = await readThreads(gh, t);
  const threads: ForgeThread[] = [];
  for (const c of comments) {
    const m = parseFindingMarker(c.body);
    if (!m || c.in_reply_to_id || !ours(c.user)) continue;
    const th = threadOf.get(c.id);
    threads.push({
      commentId: String(c.id),
      threadId: th?.id ?? null,
      fingerprint: m.fingerprint,
      runId: m.runId,
      revision: m.revision,
      body: c.body,
      resolved: th?.isResolved ?? false,
      resolvedByPerson: Boolean(th?.isResolved && th.resolvedBy && th.resolvedBy.login !== c.user?.login),
    });
  }

  // revloop's checks on the live head, and on the heads its earlier publications named (to mark them superseded).
  const shas = [head, ...new Set([...summaries.map((s) => s.revision), ...threads.map((x) => x.revision)])]
    .filter((s, i, all) => s.length === 40 && all.indexOf(s) === i)
    .slice(0, 20);
  const checks: ForgeCheck[] = [];
  for (const sha of shas) {
    const list = await gh.rest.checks
      .listForRef({
        owner: t.owner,
        repo: t.repo,
        ref: sha,
        check_name: CHECK_NAME,
        filter: 'latest',
        per_page: 100,
      })
      .catch(refused(`GET check runs of ${sha.slice(0, 7)}`, 0));
    const mine = list.data.check_runs.find((c) => c.external_id?.startsWith('revloop:'));
    if (mine)
      checks.push({
        id: String(mine.id),
        sha,
        conclusion: mine.conclusion ?? null,
        title: mine.output.title ?? '',
        summary: mine.output.summary ?? '',
      });
  }
  // A token that cannot create check runs leaves commit statuses instead: read them on every head
  // that has no check run, so an old head's status can be marked superseded too.
  for (const sha of shas) {
    if (checks.some((c) => c.sha === sha)) continue;
    const statuses = await gh.rest.repos
      .listCommitStatusesForRef({ owner: t.owner, repo: t.repo, ref: sha, per_page: 100 })
      .catch(refused(`GET statuses of ${sha.slice(0, 7)}`, 0));
    // The API lists the newest first.
    const latest = statuses.data.find((s) => s.context === CHECK_NAME);
    if (latest)
      checks.push({
        id: `status:${sha}`,
        sha,
        conclusion: latest.state === 'error' ? 'neutral' : latest.state,
        title: latest.description ?? '',
        summary: null,
      });
  }
  // Statuses and no check run anywhere: this token writes statuses, so do not try a check run first.
  const statusMode = checks.length > 0 && checks.every((c) => c.id.startsWith('status:'));
  return {
    state: { head, base: pr.data.base.sha, summaries, threads, checks, commentable },
    statusMode,
    headRepo: pr.data.head.repo?.full_name ?? null,
  };
}

async function readThreads(gh: GitHubClient, t: GitHubTarget) {
  const out = new Map<number, { id: string; isResolved: boolean; resolvedBy: { login: string } | null }>();
  let after: string | null = null;
  for (let page = 0; page < 50; page++) {
    const r: ThreadsReply = await gh
      .graphql<ThreadsReply>(THREADS, { owner: t.owner, name: t.repo, number: t.pull, after })
      .catch(refused('POST /graphql (review threads)', 0));
    const rt = r.repository?.pullRequest?.reviewThreads;
    if (!rt) break;
    for (const n of rt.nodes) {
      const first = n.comments.nodes[0];
      if (first) out.set(first.databaseId, { id: n.id, isResolved: n.isResolved, resolvedBy: n.resolvedBy });
    }
    if (!rt.pageInfo.hasNextPage) break;
    after = rt.pageInfo.endCursor;
  }
  return out;
}
