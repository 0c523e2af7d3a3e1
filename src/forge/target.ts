/**
 * Where to publish: the forge, the repository or project, the pull or merge
 * request, the API and the token, from flags or the CI environment. Tokens
 * are read from the environment only (a flag names the variable, never the
 * value) and go nowhere but the client's Authorization header.
 */
import { readFileSync } from 'node:fs';
import { ForgeTargetError } from './errors.js';
import { FORGES, type ForgeName } from './types.js';

export interface TargetFlags {
  to?: string | undefined;
  repository?: string | undefined;
  pr?: string | undefined;
  apiUrl?: string | undefined;
  tokenEnv?: string | undefined;
}

export interface ForgeTarget {
  forge: ForgeName;
  /** GitHub: owner/name; GitLab: the project id or path. */
  repository: string;
  number: number;
  apiUrl: string;
  token: string;
  tokenEnv: string;
}

const DEFAULTS: Record<
  ForgeName,
  { tokenEnv: string[]; repository: string; number: string; api: string; fallback: string }
> = {
  github: {
    tokenEnv: ['GITHUB_TOKEN', 'GH_TOKEN'],
    repository: 'GITHUB_REPOSITORY',
    number: 'GITHUB_EVENT_PATH',
    api: 'GITHUB_API_URL',
    fallback: 'https://api.github.com',
  },
  gitlab: {
    tokenEnv: ['GITLAB_TOKEN', 'REVLOOP_GITLAB_TOKEN'],
    repository: 'CI_PROJECT_ID',
    number: 'CI_MERGE_REQUEST_IID',
    api: 'CI_API_V4_URL',
    fallback: 'https://gitlab.com/api/v4',
  },
};

export function parseForge(to: string | undefined): ForgeName {
  if (!to) throw new ForgeTargetError('--to is required: github or gitlab');
  if (!(FORGES as readonly string[]).includes(to))
    throw new ForgeTargetError(`--to must be github or gitlab, not "${to}"`);
  return to as ForgeName;
}

export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv): ForgeTarget {
  const forge = parseForge(flags.to);
  const d = DEFAULTS[forge];
  if (flags.tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.tokenEnv))
    throw new ForgeTargetError(`--token-env must name an environment variable, not "${flags.tokenEnv}"`);
  const names = flags.tokenEnv ? [flags.tokenEnv] : d.tokenEnv;
  const tokenEnv = names.find((n) => env[n]) ?? (names[0] as string);
  const token = env[tokenEnv];
  if (!token)
    throw new ForgeTargetError(
      `publish to ${forge}: no token: set ${names.join(' or ')}${flags.tokenEnv ? '' : ' (or name another variable with --token-env)'}`,
    );
  const repository = flags.repository ?? env[d.repository];
  if (!repository)
    throw new ForgeTargetError(
      `publish to ${forge}: no ${forge === 'github' ? 'repository: pass --repository OWNER/NAME or set GITHUB_REPOSITORY' : 'project: pass --repository ID or set CI_PROJECT_ID'}`,
    );
  if (forge === 'github' && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository))
    throw new ForgeTargetError(`--repository must be OWNER/NAME, not "${repository}"`);
  const number = flags.pr ?? (forge === 'github' ? githubPullNumber(env) : env.CI_MERGE_REQUEST_IID);
  if (!number)
    throw new ForgeTargetError(
      `publish to ${forge}: no ${forge === 'github' ? 'pull request: pass --pr N (the event is not a pull request)' : 'merge request: pass --pr IID or run in a merge request pipeline (CI_MERGE_REQUEST_IID)'}`,
    );
  if (!/^[1-9][0-9]{0,9}$/.test(number))
    throw new ForgeTargetError(`--pr must be a positive number, not "${number}"`);
  const apiUrl = flags.apiUrl ?? env[d.api] ?? d.fallback;
  try {
    const u = new URL(apiUrl);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('not http');
  } catch {
    throw new ForgeTargetError(`--api-url must be an http(s) URL, not "${apiUrl}"`);
  }
  return { forge, repository, number: Number(number), apiUrl, token, tokenEnv };
}

/** The pull request of the event (pull_request, pull_request_target, issue_comment), else refs/pull/N/merge. */
function githubPullNumber(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITHUB_EVENT_PATH) {
    try {
      const ev = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as {
        pull_request?: { number?: number };
        issue?: { number?: number; pull_request?: unknown };
        number?: number;
      };
      const n = ev.pull_request?.number ?? (ev.issue?.pull_request ? ev.issue.number : undefined);
      if (n) return String(n);
    } catch {
      // Not readable: fall back to the ref.
    }
  }
  return /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? '')?.[1];
}
