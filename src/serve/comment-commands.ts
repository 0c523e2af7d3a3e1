/**
 * Commands a named person gives revloop from a pull request's comments:
 * settle a finding, ask for a re-review of the head, pause or resume the
 * pull request. Whether the commenter may write to the repository is asked
 * of the forge, never read from the comment. A settlement goes through the
 * operation `revloop settle` uses (bound to the content the finding judged),
 * with the forge identity (`github:login`) as the person, so the next
 * admission's settlements digest and decision carry it. The answer is a
 * reaction, or one short comment; a stranger's commands are refused once
 * per pull request and then ignored; a comment that is not a command, or a
 * bot's, gets no answer and costs no API call.
 */

import type { CommandForge } from '../forge/commands.js';
import { SettleInputError, settleFinding } from '../loop/settle.js';
import type { RerunRequest, Store } from '../ports/store.js';
import { AlreadySettledError } from '../store/errors.js';
import { type Command, parseComment, USAGE } from './comment-parse.js';

/** A comment on a pull request, as the webhook router hands it on. */
export interface CommentEvent {
  forge: 'github' | 'gitlab';
  /** `owner/name` on GitHub, the project's path on GitLab. */
  repo: string;
  pr: number;
  commentId: string;
  author: string;
  body: string;
}

/** What admitting a re-review of the pull request's head did (as `enqueue --rerun --reason`). */
export type RerunOutcome =
  | { kind: 'admitted'; runId: string }
  | { kind: 'existing'; runId: string }
  | { kind: 'deferred'; detail: string };

export interface CommentDeps {
  store: Store;
  forge(name: CommentEvent['forge']): CommandForge;
  /** The ledger's name of the repository (runs' `repo`: the mirror's clone URL without credentials). */
  repoIdentity(event: Pick<CommentEvent, 'forge' | 'repo'>): string;
  /** Admits a re-review of the pull request's live head with who asked and why. */
  requestRerun(event: CommentEvent, rerun: RerunRequest): Promise<RerunOutcome>;
  now(): number;
  /** Authors whose comments never command (revloop's own identity, other bots); `[bot]` logins always. */
  bots?: readonly string[];
}

export type CommentOutcome =
  | { result: 'ignored'; why: 'not_a_command' | 'bot' | 'unnamed_author' | 'bad_event' }
  | {
      result: 'refused';
      why:
        | 'no_write_access'
        | 'malformed'
        | 'unknown_finding'
        | 'superseded'
        | 'already_settled'
        | 'bad_input'
        | 'paused'
        | 'deferred';
      detail: string;
    }
  | { result: 'done'; command: Command['kind']; detail: string };

const AUTHOR = {
  github: /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/,
  gitlab: /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}$/,
};
const short = (sha: string): string => sha.slice(0, 12);

/** The router's `onComment`: reads the comment, acts on a command, answers; the outcome is for its log. */
export async function handleComment(deps: CommentDeps, event: CommentEvent): Promise<CommentOutcome> {
  const parsed = parseComment(event.body);
  if (parsed.kind === 'none') return { result: 'ignored', why: 'not_a_command' };
  // The router's parsing is trusted no further than this: ids that are not ids are not acted on.
  if (!Number.isSafeInteger(event.pr) || event.pr <= 0 || !/^[0-9]{1,20}$/.test(event.commentId))
    return { result: 'ignored', why: 'bad_event' };
  if (!AUTHOR[event.forge]?.test(event.author)) return { result: 'ignored', why: 'unnamed_author' };
  if (event.author.endsWith('[bot]') || deps.bots?.includes(event.author))
    return { result: 'ignored', why: 'bot' };
  const forge = deps.forge(event.forge);
  const { repo, pr } = event;
  const answer = async (
    why: Exclude<CommentOutcome, { result: 'ignored' | 'done' }>['why'],
    text: string,
  ) => {
    await forge.answer(repo, pr, { comment: event.commentId }, text);
    return { result: 'refused' as const, why, detail: text };
  };
  if (!(await forge.canWrite(repo, event.author))) {
    const text = `@${event.author} thanks, but revloop takes commands only from people with write access to this repository, so it did nothing. A maintainer can give the command instead.`;
    await forge.answer(repo, pr, { refused: event.author }, text);
    return { result: 'refused', why: 'no_write_access', detail: text };
  }
  if (parsed.kind === 'malformed')
    return answer('malformed', `${parsed.problem}: nothing was done. ${USAGE}`);
  const by = `${event.forge}:${event.author}`;
  const command = parsed.command;
  const done = async (detail: string): Promise<CommentOutcome> => {
    await forge.acknowledge(repo, pr, event.commentId);
    return { result: 'done', command: command.kind, detail };
  };
  switch (command.kind) {
    case 'pause':
      await forge.setPaused(repo, pr, true);
      return done(`paused by ${by}`);
    case 'resume':
      await forge.setPaused(repo, pr, false);
      return done(`resumed by ${by}`);
    case 'review': {
      if (await forge.isPaused(repo, pr))
        return answer(
          'paused',
          'revloop is paused on this pull request: `/revloop resume` first, then ask again.',
        );
      const out = await deps.requestRerun(event, {
        by,
        reason: command.reason ?? 'asked on the pull request',
      });
      if (out.kind === 'deferred')
        return answer('deferred', `the re-review waits: ${out.detail}. Ask again once it has room.`);
      return done(`${out.kind === 'admitted' ? 'admitted' : 'already under way:'} run ${out.runId}`);
    }
    case 'settle':
      return settle(deps, event, forge, command, by, answer, done);
  }
}

async function settle(
  deps: CommentDeps,
  event: CommentEvent,
  forge: CommandForge,
  command: Extract<Command, { kind: 'settle' }>,
  by: string,
  answer: (
    why: 'unknown_finding' | 'superseded' | 'already_settled' | 'bad_input',
    text: string,
  ) => Promise<CommentOutcome>,
  done: (detail: string) => Promise<CommentOutcome>,
): Promise<CommentOutcome> {
  const found = await deps.store.getFinding(command.finding);
  const run = found ? await deps.store.getRun(found.runId) : null;
  // Another repository's finding is answered as an unknown one: its existence is not this pull request's to learn.
  if (!found || !run || run.repo !== deps.repoIdentity(event))
    return answer(
      'unknown_finding',
      `no finding \`${command.finding}\` in this repository's reviews (a prefix must name one finding): nothing was settled.`,
    );
  const live = await forge.headOf(event.repo, event.pr);
  if (run.reason === 'superseded' || run.snapshot.head !== live)
    return answer(
      'superseded',
      `finding \`${found.id}\` is from run ${run.id}, which reviewed ${short(run.snapshot.head)}; the pull request's head is now ${short(live)}, so that run is superseded and nothing was settled. Settle the finding of the newest review.`,
    );
  try {
    await settleFinding(
      deps.store,
      { finding: found.id, by, decision: command.decision, note: command.reason },
      deps.now(),
    );
    return done(`finding ${found.id} ${command.decision} by ${by}`);
  } catch (err) {
    if (err instanceof AlreadySettledError) {
      const now = await deps.store.getFinding(found.id);
      // The same person's same decision again (a redelivered event): already done.
      if (now?.settlement?.by === by && now.settlement.decision === command.decision)
        return done(`finding ${found.id} ${command.decision} by ${by} (already)`);
      return answer(
        'already_settled',
        `finding \`${found.id}\` was already settled ${now?.settlement?.decision ?? ''} by ${err.by}: nothing was changed.`,
      );
    }
    if (err instanceof SettleInputError) return answer('bad_input', `${err.message}: nothing was settled.`);
    throw err;
  }
}
