/**
 * What `revloop serve` does with commands in pull-request comments, put
 * together from the environment: the forge's command API (an App or a token
 * on GitHub, a token on GitLab), `handleComment` with the served clone's
 * identity and the rerun admission, and the pause check the admitter asks
 * before each review. Without forge credentials there are no commands and no
 * pause: comments are acknowledged and left alone.
 */
import type { CommandForge } from '../forge/commands.js';
import type { LoopDeps } from '../loop/deps.js';
import { admitRerun, type ServeLimits } from './admitter.js';
import { APP_ENV, githubCredentialsFromEnv } from './app-auth.js';
import { handleComment } from './comment-commands.js';
import type { OnComment, Served, ServeLog } from './deps.js';
import { githubAccess } from './github-access.js';
import { GITLAB_ENV, gitlabAccess, gitlabCredentialsFromEnv } from './gitlab-access.js';

/** The forge's command API the environment gives credentials for, or null when it gives none. */
export function commandForgeFromEnv(
  served: Served,
  env: NodeJS.ProcessEnv,
  clock: { now(): number },
): CommandForge | null {
  if (served.forge === 'github') {
    if (!env[APP_ENV.appId]?.trim() && !env[APP_ENV.token]?.trim()) return null;
    return githubAccess(githubCredentialsFromEnv(env), clock).commands;
  }
  if (!env[GITLAB_ENV.token]?.trim()) return null;
  return gitlabAccess(gitlabCredentialsFromEnv(env)).commands;
}

export interface ServedCommands {
  onComment: OnComment;
  isPaused: (pr: number) => Promise<boolean>;
}

export async function servedCommands(
  deps: LoopDeps,
  served: Served,
  commands: CommandForge,
  log: ServeLog,
  bots: readonly string[],
  limits?: ServeLimits | undefined,
): Promise<ServedCommands> {
  const identity = await deps.git.identity(served.repoRoot);
  return {
    onComment: async (event) => {
      const outcome = await handleComment(
        {
          store: deps.store,
          forge: () => commands,
          repoIdentity: () => identity,
          requestRerun: (e, rerun) => admitRerun(deps, served, served.forge, e.pr, rerun, limits),
          now: () => deps.clock.now(),
          bots,
        },
        // The handler takes ids as the text it checks and prints.
        { ...event, commentId: String(event.commentId) },
      );
      log('comment', { pr: event.pr, comment: event.commentId, ...outcome });
    },
    isPaused: (pr) => commands.isPaused(served.repository, pr),
  };
}
