/**
 * The claude-code preset: Claude Code run headless, `claude -p --output-format
 * json`, the prompt on stdin. It prints one result envelope:
 * `{"type":"result","subtype":"success"|"error_max_turns"|"error_during_execution"|"error_max_budget_usd"|...,
 *   "is_error":bool,"result":"<final text>","total_cost_usd":n,"modelUsage":{"<model>":{...}}}`.
 * Only `subtype: "success"` with `is_error: false` is a reply; everything else
 * is `failed`, never a pass.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { Role } from '../core/types.js';
import type { OutputReader } from './command.js';
import { fail, finishText } from './reply-result.js';

/** The argv revloop runs: `cfg.command` (default `["claude"]`) then the headless flags. */
export function claudeCodeArgv(cfg: AgentConfig | ReviewerConfig, role: Role): string[] {
  const argv = [...(cfg.command ?? ['claude']), '-p', '--output-format', 'json'];
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
}

/** The envelope on stdout: the whole output, or its last JSON line (stream-json prints the result last). */
function envelopeOf(stdout: string): ClaudeEnvelope | null {
  const lines = stdout.trim().split('\n').reverse();
  for (const candidate of [stdout.trim(), ...lines]) {
    try {
      const v = JSON.parse(candidate) as ClaudeEnvelope;
      if (v && typeof v === 'object' && v.type === 'result') return v;
    } catch {
      // not this one
    }
  }
  return null;
}

/**
 * The model that answered: the pinned one if Claude Code used it, else the
 * model with the most output tokens (side tasks may use a smaller model).
 */
function servedModel(usage: unknown, pinned: string | undefined): string | null {
  if (!usage || typeof usage !== 'object') return null;
  const entries = Object.entries(usage as Record<string, { outputTokens?: unknown }>);
  if (entries.length === 0) return null;
  if (pinned && entries.some(([m]) => m === pinned)) return pinned;
  entries.sort((a, b) => Number(b[1]?.outputTokens ?? 0) - Number(a[1]?.outputTokens ?? 0));
  return entries[0]?.[0] ?? null;
}

export const readClaudeCode: OutputReader = ({ stdout, code }, finish) => {
  const env = envelopeOf(stdout);
  if (!env) {
    if (code !== 0) return null;
    return fail('malformed', finish.label, 'claude-code printed no result envelope');
  }
  const cost = typeof env.total_cost_usd === 'number' && env.total_cost_usd >= 0 ? env.total_cost_usd : 0;
  const subtype = typeof env.subtype === 'string' ? env.subtype : 'unknown';
  if (subtype === 'error_max_turns')
    // Not retried: a replay does the same work and meets the same limit.
    return fail(
      'failed',
      finish.label,
      'claude-code stopped at its turn limit (error_max_turns) without a result',
    );
  if (subtype === 'error_max_budget_usd')
    return fail(
      'failed',
      finish.label,
      'claude-code stopped at its cost limit (error_max_budget_usd) without a result',
    );
  if (subtype !== 'success' || env.is_error !== false) {
    const said =
      typeof env.result === 'string' && env.result.trim() ? `: ${env.result.trim().slice(0, 300)}` : '';
    return fail(
      'failed',
      finish.label,
      `claude-code reported an error (${subtype}, is_error=${String(env.is_error)})${said}`,
    );
  }
  if (typeof env.result !== 'string')
    return fail('failed', finish.label, 'claude-code envelope has no final result');
  return finishText(env.result, {
    ...finish,
    servedModel: servedModel(env.modelUsage, finish.pinnedModel),
    costUsd: cost,
  });
};
