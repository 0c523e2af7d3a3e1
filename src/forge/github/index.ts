/** The GitHub forge: octokit client, state reader and plan executor behind the ForgeAdapter port. */
import type { ForgeAdapter } from '../adapter.js';
import { type GitHubClientOptions, githubClient } from './client.js';
import { executeGitHub } from './execute.js';
import { type GitHubTarget, readGitHub } from './read.js';

export type { GitHubTarget };

export function githubAdapter(target: GitHubTarget, client: GitHubClientOptions): ForgeAdapter {
  const gh = githubClient(client);
  let statusMode = false;
  let reviews: { id: string; runId: string }[] = [];
  return {
    forge: 'github',
    where: `${target.owner}/${target.repo}#${target.pull}`,
    async read() {
      const r = await readGitHub(gh, target);
      statusMode = r.statusMode;
      reviews = r.state.summaries;
      return r.state;
    },
    execute(plan, runId) {
      const reviewId = reviews.find((s) => s.runId === runId)?.id ?? null;
      return executeGitHub(gh, target, plan, runId, { reviewId, statusMode });
    },
  };
}
