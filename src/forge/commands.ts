/**
 * What answering a command in a pull-request comment needs from a forge:
 * whether the commenter may write to the repository (asked of the forge,
 * never read from the comment), the pull request's live head, its pause
 * label, and the reply (a reaction, or one short comment that carries a
 * marker naming the command's comment, so it is never posted twice).
 */

/** The label that pauses revloop on one pull request: admissions skip a pull request that carries it. */
export const PAUSE_LABEL = 'revloop-paused';

export const isPausedBy = (labels: readonly string[]): boolean => labels.includes(PAUSE_LABEL);

/**
 * What an answer is given once for: one comment (`answer=<comment id>`), or
 * one person on one pull request (`refused=<login>`: a stranger's commands
 * are refused once, then ignored).
 */
export type AnswerKey = { comment: string } | { refused: string };

/** The hidden first line of revloop's answer; an answer whose body starts with it is not posted again. */
export const answerMarker = (key: AnswerKey): string => {
  const [name, value] = 'comment' in key ? ['answer', key.comment] : ['refused', key.refused];
  // Values come from the forge's event; one that could close the comment early is refused.
  if (!/^[A-Za-z0-9._[\]-]{1,255}$/.test(value))
    throw new Error(`not a plain ${name} token: ${JSON.stringify(value)}`);
  return `<!-- revloop ${name}=${value} -->`;
};

export interface CommandForge {
  /** Whether `user` may write to `repo` (GitHub: write, maintain or admin; GitLab: developer or above). */
  canWrite(repo: string, user: string): Promise<boolean>;
  /** The head commit the pull request has now. */
  headOf(repo: string, pr: number): Promise<string>;
  isPaused(repo: string, pr: number): Promise<boolean>;
  setPaused(repo: string, pr: number, paused: boolean): Promise<void>;
  /** Marks the comment as acted on (a thumbs-up); doing it twice is one reaction. */
  acknowledge(repo: string, pr: number, commentId: string): Promise<void>;
  /** Posts `text` as one comment, unless an answer with the same key is on the pull request already. */
  answer(repo: string, pr: number, key: AnswerKey, text: string): Promise<void>;
}
