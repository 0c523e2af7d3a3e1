/**
 * `--rerun --reason TEXT` of `review` and `enqueue`: a revision reviewed
 * again on purpose, recorded with who asked and why. Who asked is the CI's
 * actor when the job runs in one, else the OS user: names, never a secret.
 */
import { userInfo } from 'node:os';
import { UsageError } from '../core/errors.js';
import type { RerunRequest } from '../ports/store.js';

/** The CI variables that name the person a job runs for, in the order they are read. */
const ACTORS = ['GITHUB_ACTOR', 'GITLAB_USER_LOGIN'] as const;

export function rerunRequest(
  opts: { rerun?: boolean | undefined; reason?: string | undefined },
  env: NodeJS.ProcessEnv,
): RerunRequest | undefined {
  if (!opts.rerun) {
    if (opts.reason !== undefined)
      throw new UsageError('--reason goes with --rerun: it says why a revision is reviewed again');
    return undefined;
  }
  const reason = (opts.reason ?? '').replace(/\s+/g, ' ').trim();
  if (!reason) throw new UsageError('--rerun needs --reason TEXT: say why this revision is reviewed again');
  return { by: requester(env), reason };
}

function requester(env: NodeJS.ProcessEnv): string {
  for (const name of ACTORS) {
    const v = env[name]?.trim();
    if (v) return `${v} (${name})`;
  }
  let user = '';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for this uid (a container): the environment's name, if any.
  }
  return `${user || env.USER?.trim() || 'unknown'} (OS user)`;
}
