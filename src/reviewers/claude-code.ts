/**
 * The claude-code preset: Claude Code run headless, `claude -p --output-format
 * stream-json --verbose`, the prompt on stdin. It prints JSON lines: a
 * `system` init, `assistant` messages (`message.model` is the model that
 * answered), then one result envelope:
 * `{"type":"result","subtype":"success"|"error_max_turns"|"error_max_budget_usd"|...,
 *   "is_error":bool,"result":"<final text>","total_cost_usd":n,"modelUsage":{"<model asked for>":{...}},
 *   "api_error_status":429|500|...|null,"api_error_type":"rate_limit_error"|...,"api_error":"connection_failed"|...}`.
 * Only `subtype: "success"` with `is_error: false` is a reply. An API failure
 * the envelope names is classed as the API's (rate_limited, unavailable, ...);
 * any other error is `failed`, never a pass.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { Role } from '../core/types.js';
import { classifyClaudeApiError } from './classify.js';
import type { OutputReader } from './command.js';
import { costing, fail, finishText } from './reply-result.js';

/** The argv revloop runs: `cfg.command` (default `["claude"]`) then the headless flags. */
export function claudeCodeArgv(cfg: AgentConfig | ReviewerConfig, role: Role): string[] {
  // stream-json, not json: the `json` envelope keys `modelUsage` by the model Claude Code asked
  // for, so only the assistant messages of the stream say which model actually answered.
  const argv = [...(cfg.command ?? ['claude']), '-p', '--output-format', 'stream-json', '--verbose'];
  // The checkout is the change's: its .claude/settings.json and settings.local.json (hooks run
  // before any model call, plugins, permissions) and its .mcp.json servers are the author's code.
  // Only the user's own settings load, only MCP servers given here (none), and no skills or
  // commands (a project skill can carry hooks of its own).
  argv.push('--setting-sources', 'user', '--strict-mcp-config', '--disable-slash-commands');
  if (cfg.model) argv.push('--model', cfg.model);
  // A fixer must edit files without a person there to approve each edit.
  if (role === 'fixer') argv.push('--permission-mode', 'acceptEdits');
  return argv;
}

interface ClaudeEnvelope {
  type?: unknown;
  subtype?: unknown;
  is_error?: unknown;
  result?: unknown;
  total_cost_usd?: unknown;
  modelUsage?: unknown;
  api_error_status?: unknown;
  api_error_type?: unknown;
  api_error?: unknown;
}

interface ClaudeEvent extends ClaudeEnvelope {
  parent_tool_use_id?: unknown;
  message?: { model?: unknown } | undefined;
}

/** The JSON lines on stdout (the whole output when it is one `json` envelope); a cut last line is skipped. */
function eventsOf(stdout: string): ClaudeEvent[] {
  const events: ClaudeEvent[] = [];
  for (const line of stdout.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      const v = JSON.parse(t) as ClaudeEvent;
      if (v && typeof v === 'object') events.push(v);
    } catch {
      // a partial last line from a killed process
    }
  }
  return events;
}

/**
 * The model that served the main conversation, from the assistant messages
 * (subagents, `parent_tool_use_id` set, may use other models by design;
 * `<synthetic>` marks a message Claude Code made up itself, e.g. for an API
 * error). Any model other than the pin wins, so a reroute on any turn is
 * drift. Undefined when the stream holds no such message.
 */
function streamedModel(events: ClaudeEvent[], pinned: string | undefined): string | undefined {
  let seen: string | undefined;
  for (const e of events) {
    if (e.type !== 'assistant' || (e.parent_tool_use_id != null && e.parent_tool_use_id !== '')) continue;
    const m = e.message?.model;
    if (typeof m !== 'string' || m === '' || m === '<synthetic>') continue;
    if (pinned !== undefined && m !== pinned) return m;
    seen = m;
  }
  return seen;
}

/**
 * Without an event stream (a wrapper printing the `json` envelope only), the
 * best there is: the pinned model if `modelUsage` names it, else the one with
 * most output tokens. `modelUsage` is keyed by the model asked for, so this
 * cannot see a reroute; stream-json can.
 */
function usageModel(usage: unknown, pinned: string | undefined): string | null {
  if (!usage || typeof usage !== 'object') return null;
  const entries = Object.entries(usage as Record<string, { outputTokens?: unknown }>);
  if (entries.length === 0) return null;
  if (pinned && entries.some(([m]) => m === pinned)) return pinned;
  entries.sort((a, b) => Number(b[1]?.outputTokens ?? 0) - Number(a[1]?.outputTokens ?? 0));
  return entries[0]?.[0] ?? null;
}

export const readClaudeCode: OutputReader = ({ stdout, code }, finish) => {
  const events = eventsOf(stdout);
  const env = events.findLast((e) => e.type === 'result');
  if (!env) {
    if (code !== 0) return null;
    return fail('malformed', finish.label, 'claude-code printed no result envelope');
  }
  const cost = typeof env.total_cost_usd === 'number' && env.total_cost_usd >= 0 ? env.total_cost_usd : 0;
  const subtype = typeof env.subtype === 'string' ? env.subtype : 'unknown';
  if (subtype === 'error_max_turns')
    // Not retried: a replay does the same work and meets the same limit.
    return costing(
      fail(
        'failed',
        finish.label,
        'claude-code stopped at its turn limit (error_max_turns) without a result',
      ),
      cost,
    );
  if (subtype === 'error_max_budget_usd')
    return costing(
      fail(
        'failed',
        finish.label,
        'claude-code stopped at its cost limit (error_max_budget_usd) without a result',
      ),
      cost,
    );
  if (subtype !== 'success' || env.is_error !== false) {
    const said =
      typeof env.result === 'string' && env.result.trim() ? `: ${env.result.trim().slice(0, 300)}` : '';
    // Claude Code gave up on the model API (after its own retries, if any): revloop's retry path decides.
    const api = classifyClaudeApiError(env.api_error_status, env.api_error_type, env.api_error);
    if (api)
      return costing(
        fail(api, finish.label, `claude-code: the model API failed (${apiWhat(env)})${said}`),
        cost,
      );
    return costing(
      fail(
        'failed',
        finish.label,
        `claude-code reported an error (${subtype}, is_error=${String(env.is_error)})${said}`,
      ),
      cost,
    );
  }
  if (typeof env.result !== 'string')
    return costing(fail('failed', finish.label, 'claude-code envelope has no final result'), cost);
  return finishText(env.result, {
    ...finish,
    servedModel: streamedModel(events, finish.pinnedModel) ?? usageModel(env.modelUsage, finish.pinnedModel),
    costUsd: cost,
  });
};

function apiWhat(env: ClaudeEnvelope): string {
  const parts = [env.api_error_status, env.api_error_type, env.api_error].filter(
    (v) => (typeof v === 'number' || typeof v === 'string') && v !== '',
  );
  return parts.join(' ');
}
