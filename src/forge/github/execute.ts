/**
 * Carries out a publication plan on GitHub, in the plan's order. The review
 * and its inline comments are one API call (`POST .../reviews`), so a
 * refused review leaves nothing half-posted. A token that cannot create
 * check runs (anything but a GitHub App's, GITHUB_TOKEN included) gets a
 * commit status with context `revloop` instead.
 */
import { countedWrite, type ExecuteResult } from '../adapter.js';
import type { Conclusion, PublishPlan } from '../types.js';
import type { GitHubClient } from './client.js';
import { CHECK_NAME, EXTERNAL_ID, type GitHubTarget } from './read.js';
import { refusal } from './refused.js';

const RESOLVE = `mutation revloopResolve($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

/** A commit status has no neutral: a review that does not speak for this head is an error, never a success. */
const STATUS: Record<Conclusion, 'success' | 'failure' | 'error'> = {
  success: 'success',
  failure: 'failure',
  neutral: 'error',
};

export async function executeGitHub(
  gh: GitHubClient,
  t: GitHubTarget,
  plan: PublishPlan,
  runId: string,
  opts: { reviewId: string | null; statusMode: boolean },
): Promise<ExecuteResult> {
  const out: ExecuteResult = {
    writes: 0,
    reviewId: opts.reviewId,
    created: 0,
    updated: 0,
    resolved: 0,
    check: null,
  };
  const base = { owner: t.owner, repo: t.repo };
  let statusMode = opts.statusMode;
  const step = countedWrite(out, refusal);
  const status = (sha: string, conclusion: Conclusion, title: string) =>
    step(`POST commit status on ${sha.slice(0, 7)}`, () =>
      gh.rest.repos.createCommitStatus({
        ...base,
        sha,
        state: STATUS[conclusion],
        context: CHECK_NAME,
        description: title.slice(0, 140),
      }),
    );

  for (const a of plan.actions) {
    switch (a.kind) {
      case 'create_summary': {
        const r = await step(`POST review on ${t.owner}/${t.repo}#${t.pull}`, () =>
          gh.rest.pulls.createReview({
            ...base,
            pull_number: t.pull,
            commit_id: a.commitId,
            event: a.event,
            body: a.body,
            comments: a.comments.map((c) => ({
              path: c.path,
              line: c.line,
              side: 'RIGHT',
              ...(c.startLine !== null ? { start_line: c.startLine, start_side: 'RIGHT' } : {}),
              body: c.body,
            })),
          }),
        );
        out.reviewId = String(r.data.id);
        out.created += a.comments.length;
        break;
      }
      case 'update_summary':
        await step(`PUT review ${a.summaryId}`, () =>
          gh.rest.pulls.updateReview({
            ...base,
            pull_number: t.pull,
            review_id: Number(a.summaryId),
            body: a.body,
          }),
        );
        out.reviewId = a.summaryId;
        break;
      case 'add_comment': {
        const c = a.comment;
        await step(`POST review comment on ${c.path}:${c.line}`, () =>
          gh.rest.pulls.createReviewComment({
            ...base,
            pull_number: t.pull,
            commit_id: a.commitId,
            path: c.path,
            line: c.line,
            side: 'RIGHT',
            ...(c.startLine !== null ? { start_line: c.startLine, start_side: 'RIGHT' as const } : {}),
            body: c.body,
          }),
        );
        out.created++;
        break;
      }
      case 'edit_comment':
        await step(`PATCH review comment ${a.commentId}`, () =>
          gh.rest.pulls.updateReviewComment({ ...base, comment_id: Number(a.commentId), body: a.body }),
        );
        out.updated++;
        break;
      case 'resolve_thread':
        await step(`resolveReviewThread ${a.threadId}`, () => gh.graphql(RESOLVE, { threadId: a.threadId }));
        out.resolved++;
        break;
      case 'set_check': {
        if (statusMode || a.checkId?.startsWith('status:')) {
          await status(a.sha, a.conclusion, a.title);
          out.check = 'status';
          break;
        }
        const fields = {
          ...base,
          name: CHECK_NAME,
          external_id: EXTERNAL_ID(runId),
          status: 'completed' as const,
          conclusion: a.conclusion,
          output: { title: a.title, summary: a.summary },
        };
        try {
          // A check run's commit is fixed at creation; an update names only the run.
          if (a.checkId) await gh.rest.checks.update({ ...fields, check_run_id: Number(a.checkId) });
          else await gh.rest.checks.create({ ...fields, head_sha: a.sha });
          out.writes++;
          out.check = 'check_run';
        } catch (err) {
          // Only a GitHub App may create check runs; any other token falls back to a commit status.
          if ((err as { status?: number }).status !== 403 || a.checkId)
            throw refusal(`POST check run on ${a.sha.slice(0, 7)}`, out.writes, err);
          // A superseded check on an old head is not worth a status of its own.
          if (a.sha !== plan.check.sha) break;
          statusMode = true;
          await status(a.sha, a.conclusion, a.title);
          out.check = 'status';
        }
        break;
      }
    }
  }
  return out;
}
