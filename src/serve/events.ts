/**
 * What a verified delivery asks, read from the forge's payload with no I/O:
 * review a pull request's head, cancel its queued work, hand on a comment, or
 * nothing. Every event and action not listed is ignored (answered 2xx, so
 * GitLab never disables the hook); a payload missing what its event needs is
 * malformed (400).
 */
import type { DeliveryIntent } from '../ports/deliveries.js';
import type { CommentEvent, ServePolicy } from './deps.js';

export interface Trigger {
  event: string;
  intent: DeliveryIntent;
  repository: string;
  pr: number;
  head: string | null;
  baseBranch: string;
  sender: string | null;
}

export type Classified =
  | { kind: 'trigger'; trigger: Trigger }
  | { kind: 'comment'; comment: CommentEvent }
  | { kind: 'ignore'; reason: string }
  | { kind: 'malformed'; reason: string };

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const posInt = (v: unknown): number | null =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 2 ** 31 ? v : null;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
/** A branch name git accepts and a refspec can carry. */
const BRANCH = /^(?!.*\.\.)(?!\/)[A-Za-z0-9._/-]+(?<!\/)(?<!\.lock)$/;

const ignore = (reason: string): Classified => ({ kind: 'ignore', reason });
const malformed = (reason: string): Classified => ({ kind: 'malformed', reason });

/** GitHub's `pull_request` actions that ask for a review of the head. */
const GITHUB_REVIEW = ['opened', 'reopened', 'synchronize', 'ready_for_review'];

/** GitHub senders that never trigger a run: apps and bots, and the logins configured as revloop's own. */
function githubBot(sender: Json | null, policy: ServePolicy): boolean {
  const login = str(sender?.login);
  return sender?.type === 'Bot' || (login !== null && policy.botLogins.includes(login));
}

export function classifyGitHub(event: string, body: Json, policy: ServePolicy): Classified {
  const repository = str(obj(body.repository)?.full_name);
  const sender = obj(body.sender);
  if (event === 'pull_request') {
    const pr = obj(body.pull_request);
    const action = str(body.action);
    if (!pr || !action || !repository)
      return malformed('pull_request needs action, pull_request and repository');
    const number = posInt(pr.number ?? body.number);
    const head = str(obj(pr.head)?.sha);
    const base = str(obj(pr.base)?.ref);
    if (number === null || !head || !SHA.test(head) || !base || !BRANCH.test(base))
      return malformed('pull_request needs number, head.sha and base.ref');
    const trigger = (intent: DeliveryIntent): Classified => ({
      kind: 'trigger',
      trigger: {
        event: `pull_request/${action}`,
        intent,
        repository,
        pr: number,
        head,
        baseBranch: base,
        sender: str(sender?.login),
      },
    });
    if (action === 'closed') return trigger('close');
    if (!GITHUB_REVIEW.includes(action)) return ignore(`pull_request/${action}`);
    if (githubBot(sender, policy)) return ignore(`sender ${str(sender?.login) ?? '?'} is a bot`);
    if (pr.draft === true && !policy.drafts) return ignore('draft pull request');
    return trigger('review');
  }
  if (event === 'issue_comment') {
    const issue = obj(body.issue);
    const comment = obj(body.comment);
    if (!issue || !comment || !repository)
      return malformed('issue_comment needs issue, comment and repository');
    if (!issue.pull_request) return ignore('a comment on an issue, not a pull request');
    if (body.action !== 'created') return ignore(`issue_comment/${String(body.action)}`);
    const number = posInt(issue.number);
    const id = posInt(comment.id);
    const author = str(obj(comment.user)?.login);
    if (number === null || id === null || !author || typeof comment.body !== 'string')
      return malformed('issue_comment needs issue.number, comment.id, comment.user.login and comment.body');
    if (githubBot(sender, policy) || obj(comment.user)?.type === 'Bot')
      return ignore(`comment by bot ${author}`);
    return {
      kind: 'comment',
      comment: { forge: 'github', repo: repository, pr: number, commentId: id, author, body: comment.body },
    };
  }
  return ignore(event === 'ping' ? 'ping' : `event ${event || '(none)'}`);
}

/** GitLab bot accounts: the project and group access-token users, and the logins configured as revloop's own. */
function gitlabBot(user: Json | null, policy: ServePolicy): boolean {
  const name = str(user?.username);
  return (
    user?.bot === true ||
    (name !== null &&
      (/^(project|group)_\d+_bot(_[0-9a-f]+)?$/.test(name) || policy.botLogins.includes(name)))
  );
}

export function classifyGitLab(body: Json, policy: ServePolicy): Classified {
  const kind = str(body.object_kind);
  const project = obj(body.project);
  const repository = str(project?.path_with_namespace);
  const user = obj(body.user);
  const attrs = obj(body.object_attributes);
  if (kind === 'merge_request') {
    const action = str(attrs?.action);
    if (!attrs || !repository) return malformed('merge_request needs object_attributes and project');
    const iid = posInt(attrs.iid);
    const head = str(obj(attrs.last_commit)?.id);
    const base = str(attrs.target_branch);
    if (iid === null || !head || !SHA.test(head) || !base || !BRANCH.test(base))
      return malformed('merge_request needs object_attributes.iid, last_commit.id and target_branch');
    const trigger = (intent: DeliveryIntent): Classified => ({
      kind: 'trigger',
      trigger: {
        event: `merge_request/${action ?? 'none'}`,
        intent,
        repository,
        pr: iid,
        head,
        baseBranch: base,
        sender: str(user?.username),
      },
    });
    if (action === 'close' || action === 'merge') return trigger('close');
    const draft = attrs.draft === true || attrs.work_in_progress === true;
    // An update is a push only with `oldrev`; marked ready (draft true -> false) it is asked for too.
    const draftChange = obj(obj(body.changes)?.draft);
    const readied = draftChange?.previous === true && draftChange.current === false;
    const asks =
      action === 'open' ||
      action === 'reopen' ||
      (action === 'update' && (str(attrs.oldrev) !== null || readied));
    if (!asks)
      return ignore(`merge_request/${action ?? 'none'}${action === 'update' ? ' without a push' : ''}`);
    if (gitlabBot(user, policy)) return ignore(`sender ${str(user?.username) ?? '?'} is a bot`);
    if (draft && !policy.drafts) return ignore('draft merge request');
    return trigger('review');
  }
  if (kind === 'note') {
    if (attrs?.noteable_type !== 'MergeRequest')
      return ignore('a note on something other than a merge request');
    const mr = obj(body.merge_request);
    const iid = posInt(mr?.iid);
    const id = posInt(attrs.id);
    const author = str(user?.username);
    if (!repository || iid === null || id === null || !author || typeof attrs.note !== 'string')
      return malformed('note needs project, merge_request.iid, object_attributes.id and note, and user');
    if (gitlabBot(user, policy)) return ignore(`comment by bot ${author}`);
    return {
      kind: 'comment',
      comment: { forge: 'gitlab', repo: repository, pr: iid, commentId: id, author, body: attrs.note },
    };
  }
  return ignore(`object_kind ${kind ?? '(none)'}`);
}
