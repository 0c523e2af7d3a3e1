/**
 * The environment of every process revloop starts for a role (a reviewer,
 * the refuter, the fixer, a judge, a check): built up from an allowlist,
 * never filtered down from revloop's own. In CI the job's environment holds
 * forge tokens, model keys, the runner's own tokens and the ledger's URL;
 * the code a check runs is the change's, and an agent can be talked into
 * running anything, so a process gets only what it is given on purpose:
 * what any program needs to run (locale, PATH, HOME, temp dir, proxies
 * without credentials, CA bundles), the call's `REVLOOP_*` variables, and
 * the credentials its adapter names (the agent CLI's own, or the agent's
 * `env:` list in the trusted config). A check gets no credential at all.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';

/** What a process may be given besides the allowlist: exact names, and name prefixes. */
export interface EnvGrant {
  names: readonly string[];
  prefixes: readonly string[];
}

export const NO_GRANT: EnvGrant = { names: [], prefixes: [] };

const ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TMPDIR',
  'CI',
  // Where a TLS client finds the CA that a corporate proxy's certificates chain to.
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
]);
const ALLOWED_PREFIXES = ['LC_'];

/** A proxy is how the network is reached here; one whose URL carries a password is a credential. */
const PROXIES = new Set([
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
]);
const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/@]*@/i;

/**
 * Claude Code's own variables: its credentials (`ANTHROPIC_API_KEY`,
 * `ANTHROPIC_AUTH_TOKEN`, `CLAUDE_CODE_OAUTH_TOKEN`), endpoint and model
 * settings (`ANTHROPIC_*`), and its switches (`CLAUDE_CODE_*`, `DISABLE_*`).
 */
const CLAUDE_CODE_GRANT: EnvGrant = {
  names: [
    'CLAUDE_CONFIG_DIR',
    'DISABLE_AUTOUPDATER',
    'DISABLE_TELEMETRY',
    'DISABLE_ERROR_REPORTING',
    'DISABLE_NON_ESSENTIAL_MODEL_CALLS',
  ],
  prefixes: ['ANTHROPIC_', 'CLAUDE_CODE_'],
};

/** Codex's own variables: its key and endpoint (`OPENAI_*` it reads), and `CODEX_*` (its home among them). */
const CODEX_GRANT: EnvGrant = {
  names: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORGANIZATION', 'OPENAI_PROJECT'],
  prefixes: ['CODEX_'],
};

/** What an agent's process is granted: its adapter's own variables and the `env:` names its config lists. */
export function agentGrant(cfg: AgentConfig | ReviewerConfig): EnvGrant {
  const own =
    cfg.adapter === 'claude-code' ? CLAUDE_CODE_GRANT : cfg.adapter === 'codex' ? CODEX_GRANT : NO_GRANT;
  return { names: [...own.names, ...(cfg.env ?? [])], prefixes: own.prefixes };
}

function granted(name: string, grant: EnvGrant): boolean {
  return grant.names.includes(name) || grant.prefixes.some((p) => name.startsWith(p));
}

/**
 * The environment of one role process: the allowlist from `base`, what
 * `grant` names, then `call` (the call's own variables, which win). Nothing
 * else of `base` passes, `REVLOOP_*` included (the ledger's URL is one).
 */
export function roleEnv(
  base: NodeJS.ProcessEnv,
  grant: EnvGrant,
  call: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const allowed =
      ALLOWED.has(name) ||
      ALLOWED_PREFIXES.some((p) => name.startsWith(p)) ||
      (PROXIES.has(name) && !USERINFO.test(value));
    if (allowed || granted(name, grant)) env[name] = value;
  }
  return { ...env, ...call };
}
