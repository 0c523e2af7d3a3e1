/**
 * `revloop serve`: the webhook service (src/serve) on a PostgreSQL ledger,
 * until SIGINT/SIGTERM. Refuses to start without a webhook secret (exit 2)
 * or on any other ledger (exit 15). Logs are JSON lines on stdout.
 */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { listOpenPulls } from '../../forge/index.js';
import { createGit } from '../../git/index.js';
import { composeDeps, trustedMachineConfig } from '../../loop/compose.js';
import { type DeliveryForge, FORGE_NAMES } from '../../ports/deliveries.js';
import { commandForgeFromEnv, servedCommands } from '../../serve/commands-wiring.js';
import { ServiceNeedsPostgresError } from '../../serve/errors.js';
import { secretSource } from '../../serve/signature.js';
import { startServe } from '../../serve/start.js';
import { openStore } from '../../store/index.js';
import type { Command } from '../io.js';

interface Opts {
  repo?: string;
  store?: string;
  forge: string;
  repository?: string;
  remote: string;
  host: string;
  port: string;
  secretFile?: string;
  drafts?: boolean;
  bot?: string[];
  maxBodyBytes: string;
  reconcileSeconds: string;
  apiUrl?: string;
  tokenEnv?: string;
  maxActiveRuns?: string;
  dailySpendUsd?: string;
}

const API: Record<DeliveryForge, { env: string; fallback: string; tokens: string[]; repo: string }> = {
  github: {
    env: 'GITHUB_API_URL',
    fallback: 'https://api.github.com',
    tokens: ['GITHUB_TOKEN', 'GH_TOKEN'],
    repo: 'GITHUB_REPOSITORY',
  },
  gitlab: {
    env: 'CI_API_V4_URL',
    fallback: 'https://gitlab.com/api/v4',
    tokens: ['GITLAB_TOKEN', 'REVLOOP_GITLAB_TOKEN'],
    repo: 'CI_PROJECT_PATH',
  },
};

const whole = (flag: string, v: string, min: number, max: number): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${v}"`);
  return n;
};

const dollars = (flag: string, v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new UsageError(`${flag} must be an amount in US dollars >= 0, got "${v}"`);
  return n;
};

const serve: Command<Opts> = async (_args, opts, io) => {
  if (!(FORGE_NAMES as readonly string[]).includes(opts.forge))
    throw new UsageError(`--forge must be github or gitlab, not "${opts.forge}"`);
  const forge = opts.forge as DeliveryForge;
  const port = whole('--port', opts.port, 0, 65535);
  const maxBodyBytes = whole('--max-body-bytes', opts.maxBodyBytes, 1024, 64 * 1024 * 1024);
  const reconcileSeconds = whole('--reconcile-seconds', opts.reconcileSeconds, 0, 7 * 86400);
  const limits = {
    maxActive:
      opts.maxActiveRuns === undefined
        ? undefined
        : whole('--max-active-runs', opts.maxActiveRuns, 1, 100_000),
    dailySpendUsd:
      opts.dailySpendUsd === undefined ? undefined : dollars('--daily-spend-usd', opts.dailySpendUsd),
  };
  const repository = opts.repository ?? io.env[API[forge].repo];
  if (!repository)
    throw new UsageError(
      `--repository is required: the served ${forge === 'github' ? 'OWNER/NAME' : 'project path'}`,
    );
  if (!/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/.test(repository))
    throw new UsageError(
      `--repository must be OWNER/NAME (or a GitLab group/project path), not "${repository}"`,
    );
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(opts.remote))
    throw new UsageError(`--remote must name a remote of the clone, not "${opts.remote}"`);
  if (opts.tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.tokenEnv))
    throw new UsageError(`--token-env must name an environment variable, not "${opts.tokenEnv}"`);
  // The secret first: nothing opens, nothing listens, without one.
  const secrets = secretSource(io.env, opts.secretFile ? resolve(io.cwd, opts.secretFile) : undefined);
  secrets();
  const git = createGit();
  const root = await git.root(resolve(io.cwd, opts.repo ?? '.'));
  const { url } = await trustedMachineConfig(root, opts.store, io.env);
  if (!/^postgres(ql)?:\/\//.test(url)) throw new ServiceNeedsPostgresError(url.split(':')[0] ?? url);
  const store = await openStore(url, { repoRoot: root, userUrl: true });
  const log = (msg: string, fields: Record<string, unknown> = {}) =>
    io.stdout(`${JSON.stringify({ time: new Date().toISOString(), msg, ...fields })}\n`);
  try {
    const deps = composeDeps({
      store,
      repoRoot: root,
      env: io.env,
      signal: io.stopSignal,
      warn: (l) => io.stderr(l),
    });
    const tokenNames = opts.tokenEnv ? [opts.tokenEnv] : API[forge].tokens;
    const token = tokenNames.map((n) => io.env[n]).find(Boolean);
    const apiUrl = opts.apiUrl ?? io.env[API[forge].env] ?? API[forge].fallback;
    if (!token && reconcileSeconds > 0)
      log('reconciler off: no forge token', { set: tokenNames.join(' or ') });
    const served = { forge, repository, repoRoot: root, remote: opts.remote };
    const commands = commandForgeFromEnv(served, io.env, deps.clock);
    const handling = commands
      ? await servedCommands(deps, served, commands, log, opts.bot ?? [], limits)
      : null;
    if (!handling) log('comment commands off: no forge credentials for commands');
    const running = await startServe({
      deps,
      served,
      onComment: handling?.onComment,
      admitter: { isPaused: handling?.isPaused, limits },
      policy: { drafts: Boolean(opts.drafts), botLogins: opts.bot ?? [], maxBodyBytes },
      secrets,
      log,
      host: opts.host,
      port,
      listOpen:
        token && reconcileSeconds > 0 ? () => listOpenPulls({ forge, repository, apiUrl, token }) : null,
      reconcileMs: reconcileSeconds * 1000,
    });
    log('listening', { url: running.url, forge, repository, secrets: secrets().length });
    if (!io.stopSignal.aborted)
      await new Promise<void>((done) =>
        io.stopSignal.addEventListener('abort', () => done(), { once: true }),
      );
    await running.close();
    log('stopped');
    return 0;
  } finally {
    await store.close();
  }
};

export default serve;
