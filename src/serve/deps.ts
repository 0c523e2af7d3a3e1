/**
 * What the webhook service needs from the outside, injected so that tests
 * and the composition root (cli/commands/serve.ts) choose it: the ledger, the
 * served clone, the secrets, the comment handler, a clock and a log.
 */
import type { DeliveryForge } from '../ports/deliveries.js';
import type { Store } from '../ports/store.js';
import type { ServeMetrics } from './metrics.js';

/** A comment on a pull request, verified and handed on as the forge sent it; never a bot's. */
export interface CommentEvent {
  forge: DeliveryForge;
  /** GitHub owner/name; GitLab the project path. */
  repo: string;
  pr: number;
  commentId: number;
  author: string;
  body: string;
}

/**
 * Handles a pull request's comment (commands such as `/revloop settle`).
 * Called after the signature is verified and before the sender is answered;
 * a throw answers 503, so the forge delivers the comment again.
 */
export type OnComment = (event: CommentEvent) => Promise<void>;

/** The default: comments are acknowledged and nothing is done with them. */
export const ignoreComments: OnComment = async () => {};

/** One structured log line: the message and its fields (delivery id, run id, status). */
export type ServeLog = (msg: string, fields?: Record<string, unknown>) => void;

/** The repository this service serves: the forge's name for it and the local clone it fetches into. */
export interface Served {
  forge: DeliveryForge;
  /** GitHub owner/name; GitLab the project path (path_with_namespace). */
  repository: string;
  /** The local clone: pull request heads are fetched into it and runs admitted from it. */
  repoRoot: string;
  /** The clone's remote that is the forge's repository. */
  remote: string;
}

export interface ServePolicy {
  /** Review draft pull requests too (default: skipped until ready for review). */
  drafts: boolean;
  /** Logins whose events never trigger a run, besides every `Bot` (revloop's own identity among them). */
  botLogins: readonly string[];
  /** Bodies larger than this are refused (413) before they are read in full or parsed. */
  maxBodyBytes: number;
}

export interface RouterDeps {
  store: Store;
  served: Served;
  policy: ServePolicy;
  /** The webhook secrets, current first; a delivery signed with any of them is accepted (rotation). */
  secrets: () => readonly string[];
  onComment: OnComment;
  log: ServeLog;
  /** Told when a delivery was committed, so the admitter need not wait for its next poll. */
  wake?: (() => void) | undefined;
  /** The process's counters for `/metrics` (a fresh set when absent). */
  metrics?: ServeMetrics | undefined;
  /** The kill harness's hook (`REVLOOP_CRASH_AT=serve:after-commit`): dies between the commit and the answer. */
  crashPoint?: ((name: string) => void) | undefined;
}
