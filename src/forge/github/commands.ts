/**
 * The GitHub side of comment commands. Each call asks the token source for
 * the repository's token (an App installation's, refreshed before expiry),
 * so a long-lived service never holds an expired one.
 */
import { answerMarker, type CommandForge, PAUSE_LABEL } from '../commands.js';
import { type GitHubClient, githubClient } from './client.js';
import { refused } from './refused.js';

export interface GitHubCommandOptions {
  apiUrl: string;
  /** The token for `owner/name` at the time of the call. */
  token(repo: string): Promise<string>;
  /** Tests turn off GitHub's pacing of writes. */
  paceWrites?: boolean;
}

/** Permissions that may write to the repository (`permission` folds maintain into write). */
const WRITERS = new Set(['admin', 'write']);

export function githubCommandForge(o: GitHubCommandOptions): CommandForge {
  const clients = new Map<string, GitHubClient>();
  const client = async (repo: string): Promise<{ api: GitHubClient; owner: string; name: string }> => {
    const token = await o.token(repo);
    let api = clients.get(token);
    if (!api) {
      // Tokens are replaced hourly: keep only the current one's client.
      clients.clear();
      api = githubClient({ token, baseUrl: o.apiUrl, paceWrites: o.paceWrites ?? true });
      clients.set(token, api);
    }
    const [owner, name] = repo.split('/') as [string, string];
    return { api, owner, name };
  };
  return {
    async canWrite(repo, user) {
      const { api, owner, name } = await client(repo);
      try {
        const res = await api.rest.repos.getCollaboratorPermissionLevel({
          owner,
          repo: name,
          username: user,
        });
        return WRITERS.has(res.data.permission);
      } catch (err) {
        // Not a collaborator, or no such user: no write access.
        if ((err as { status?: number }).status === 404) return false;
        return refused(`GET permission of ${user} on ${repo}`, 0)(err);
      }
    },
    async headOf(repo, pr) {
      const { api, owner, name } = await client(repo);
      const res = await api.rest.pulls
        .get({ owner, repo: name, pull_number: pr })
        .catch(refused(`GET ${repo}#${pr}`, 0));
      return res.data.head.sha;
    },
    async isPaused(repo, pr) {
      const { api, owner, name } = await client(repo);
      const res = await api.rest.issues
        .listLabelsOnIssue({ owner, repo: name, issue_number: pr, per_page: 100 })
        .catch(refused(`GET labels of ${repo}#${pr}`, 0));
      return res.data.some((l) => l.name === PAUSE_LABEL);
    },
    async setPaused(repo, pr, paused) {
      const { api, owner, name } = await client(repo);
      if (paused) {
        await api.rest.issues
          .addLabels({ owner, repo: name, issue_number: pr, labels: [PAUSE_LABEL] })
          .catch(refused(`POST label on ${repo}#${pr}`, 0));
        return;
      }
      await api.rest.issues
        .removeLabel({ owner, repo: name, issue_number: pr, name: PAUSE_LABEL })
        .catch((err) => {
          // Already gone: resumed.
          if ((err as { status?: number }).status !== 404) refused(`DELETE label on ${repo}#${pr}`, 0)(err);
        });
    },
    async acknowledge(repo, _pr, commentId) {
      const { api, owner, name } = await client(repo);
      await api.rest.reactions
        .createForIssueComment({ owner, repo: name, comment_id: Number(commentId), content: '+1' })
        .catch(refused(`POST reaction on comment ${commentId}`, 0));
    },
    async answer(repo, pr, key, text) {
      const { api, owner, name } = await client(repo);
      const marker = answerMarker(key);
      const existing = await api
        .paginate(api.rest.issues.listComments, { owner, repo: name, issue_number: pr, per_page: 100 })
        .catch(refused(`GET comments of ${repo}#${pr}`, 0));
      if (existing.some((c) => c.body?.startsWith(marker))) return;
      await api.rest.issues
        .createComment({ owner, repo: name, issue_number: pr, body: `${marker}\n${text}` })
        .catch(refused(`POST comment on ${repo}#${pr}`, 0));
    },
  };
}
