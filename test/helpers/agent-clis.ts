/**
 * The real agent CLIs (Claude Code, Codex) for tests: where they are
 * installed, and how to run them against the loopback model server with no
 * other network. `.ci/run` installs them into `$REVLOOP_AGENT_CLIS`
 * (default `~/.cache/revloop-agent-clis`), outside the package.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentModelServer } from './agent-model-server.js';

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';
export const INSTALL_HINT = `npm install --prefix "\${REVLOOP_AGENT_CLIS:-$HOME/.cache/revloop-agent-clis}" @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} @openai/codex@${CODEX_VERSION}`;

const BRIDGE = join(import.meta.dirname, 'netless-bridge.mjs');

export type AgentClis = { found: true; claude: string; codex: string } | { found: false; why: string };

export function findAgentClis(env: NodeJS.ProcessEnv = process.env): AgentClis {
  const dir = env.REVLOOP_AGENT_CLIS || join(homedir(), '.cache', 'revloop-agent-clis');
  const bin = join(dir, 'node_modules', '.bin');
  const claude = join(bin, 'claude');
  const codex = join(bin, 'codex');
  const missing = [claude, codex].filter((p) => !existsSync(p));
  if (missing.length > 0)
    return {
      found: false,
      why: `real agent CLIs not installed (${missing.join(', ')} missing); install them with: ${INSTALL_HINT}`,
    };
  return { found: true, claude, codex };
}

/**
 * Whether this machine lets an unprivileged process make a network namespace
 * with only loopback (user namespaces enabled, iproute2 present). Without it
 * the CLIs still get only proxies that refuse, but no kernel-enforced wall.
 */
export function netnsAvailable(): boolean {
  const r = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' });
  return r.status === 0;
}

/**
 * The executable prefix that runs `cli` with no network but the model server:
 * in a fresh network namespace (loopback only) with a bridge to the server's
 * Unix socket on the same port, so the base URL is the same either way.
 */
export function isolatedCommand(server: AgentModelServer, cli: string, netns: boolean): string[] {
  if (!netns) return [cli];
  return [
    'unshare',
    '-rn',
    'sh',
    '-c',
    'ip link set lo up && exec "$0" "$@"',
    process.execPath,
    BRIDGE,
    server.socketPath,
    String(server.port),
    cli,
  ];
}

const homes: string[] = [];

/** A private HOME for one CLI run (the CLIs write their state and sessions there). */
function privateHome(prefix: string, under = tmpdir()): string {
  mkdirSync(under, { recursive: true });
  const home = mkdtempSync(join(under, prefix));
  homes.push(home);
  return home;
}

/** Removes the HOMEs made by claudeEnv and codexEnv. */
export function cleanupAgentHomes(): void {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

/** What both CLIs get: a private HOME, and the model server as the only proxy (it refuses other hosts). */
function commonEnv(server: AgentModelServer, home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LC_ALL: 'C',
    HTTPS_PROXY: server.url,
    HTTP_PROXY: server.url,
    ALL_PROXY: server.url,
    https_proxy: server.url,
    http_proxy: server.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

/** Claude Code pointed at the server, no updater, telemetry or other nonessential traffic, no own retries. */
export function claudeEnv(server: AgentModelServer): NodeJS.ProcessEnv {
  const home = privateHome('revloop-claude-home-');
  return {
    ...commonEnv(server, home),
    ANTHROPIC_BASE_URL: server.url,
    // A dummy key: the loopback server accepts any.
    ANTHROPIC_API_KEY: 'sk-ant-loopback-dummy-0000',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // revloop owns the retry budget: a 429 comes back to it at once, not after Claude's own backoff.
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}

/**
 * Codex pointed at the server through a custom provider in `CODEX_HOME/config.toml`
 * (Responses API). No request retries of its own; one stream retry, so a 5xx shows
 * Codex's `Reconnecting... 1/1` event as it does in the field.
 */
export function codexEnv(server: AgentModelServer, homeUnder?: string): NodeJS.ProcessEnv {
  const home = privateHome('revloop-codex-home-', homeUnder);
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome);
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model_provider = "loopback"',
      'model = "gpt-loopback-pin"',
      '[model_providers.loopback]',
      'name = "loopback"',
      `base_url = "${server.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "LOOPBACK_MODEL_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 1',
      '',
    ].join('\n'),
  );
  return { ...commonEnv(server, home), CODEX_HOME: codexHome, LOOPBACK_MODEL_KEY: 'loopback-dummy-key-0000' };
}
