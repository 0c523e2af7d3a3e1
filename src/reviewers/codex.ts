/**
 * The codex preset: OpenAI Codex CLI run headless, `codex exec --json -`
 * (the prompt on stdin). It prints JSONL events: `thread.started`,
 * `turn.started`, `item.started|updated|completed` (the answer is an item of
 * type `agent_message` with `text`), then `turn.completed` with token `usage`,
 * or `turn.failed` with `error.message`; `error` events report stream
 * trouble (`Reconnecting... n/m (...)` while Codex retries). Only a completed
 * turn with a final agent message is a reply. A failed turn that names an
 * HTTP status or an outage is classed as the API's (see classify.ts). Codex
 * reports the model it was served only when it differs from the one it asked
 * for, as an `error` item `model rerouted: <asked> -> <served>`: that is the
 * served model; without one, the model asked for (the pin) is.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { Role } from '../core/types.js';
import { classifyCodexFailure } from './classify.js';
import type { OutputReader } from './command.js';
import { costing, fail, finishText, tokenCost } from './reply-result.js';

/**
 * The argv revloop runs: `cfg.command` (default `["codex"]`) then `exec --json`, flags, and `-`
 * for stdin. `untrusted` are the directories Codex is told not to trust for this run (the checkout
 * and the repository it is a worktree of).
 */
export function codexArgv(
  cfg: AgentConfig | ReviewerConfig,
  role: Role,
  untrusted: readonly string[] = [],
): string[] {
  const argv = [...(cfg.command ?? ['codex']), 'exec', '--json'];
  if (cfg.model) argv.push('--model', cfg.model);
  // Reviewers and refuters only read; the fixer edits its worktree.
  argv.push('--sandbox', role === 'fixer' ? 'workspace-write' : 'read-only');
  // Codex loads a project's .codex/ (MCP servers it starts at once, hooks, rules, model settings)
  // for a project the user trusts, and a worktree inherits its repository's trust: the checkout
  // is the change's, so it is marked untrusted for this run. AGENTS.md, the change's text, is
  // not taken as instructions either.
  if (untrusted.length > 0) argv.push('-c', untrustedProjects(untrusted));
  argv.push('-c', 'project_doc_max_bytes=0');
  argv.push('-');
  return argv;
}

/** `projects={"<dir>"={trust_level="untrusted"}, ...}`: a TOML inline table (JSON strings are TOML basic strings). */
function untrustedProjects(dirs: readonly string[]): string {
  const entries = [...new Set(dirs)].map((d) => `${JSON.stringify(d)}={trust_level="untrusted"}`);
  return `projects={${entries.join(',')}}`;
}

/** `model rerouted: gpt-a -> gpt-b (reason)`: the second id is the model that answered. */
const REROUTED = /^model rerouted: \S+ -> (\S+)/;

interface CodexEvent {
  type?: unknown;
  item?: { type?: unknown; text?: unknown; message?: unknown } | undefined;
  usage?: { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  error?: { message?: unknown } | undefined;
  message?: unknown;
}

/** Builds the reader; token prices, when configured, give the cost (codex reports no money). */
export function readCodexWith(prices: AgentConfig['prices']): OutputReader {
  return ({ stdout, code }, finish) => {
    const events: CodexEvent[] = [];
    for (const line of stdout.split('\n')) {
      const t = line.trim();
      if (!t.startsWith('{')) continue;
      try {
        events.push(JSON.parse(t) as CodexEvent);
      } catch {
        // a partial last line from a killed process; the missing turn.completed says enough
      }
    }
    if (events.length === 0)
      return code === 0 ? fail('malformed', finish.label, 'codex printed no JSON events') : null;
    let message: string | null = null;
    let completed: CodexEvent | null = null;
    let failed: string | null = null;
    let lastError: string | null = null;
    let reconnects = 0;
    let rerouted: string | null = null;
    for (const e of events) {
      if (e.type === 'item.completed' && e.item?.type === 'agent_message' && typeof e.item.text === 'string')
        message = e.item.text;
      else if (e.type === 'item.completed' && e.item?.type === 'error' && typeof e.item.message === 'string')
        rerouted = REROUTED.exec(e.item.message)?.[1] ?? rerouted;
      else if (e.type === 'turn.completed') completed = e;
      else if (e.type === 'turn.failed') failed = String(e.error?.message ?? 'turn failed');
      else if (e.type === 'error') {
        lastError = String(e.message ?? e.error?.message ?? 'error');
        if (lastError.startsWith('Reconnecting...')) reconnects++;
      }
    }
    // Tokens a failed turn used are paid for too (codex reports tokens, never money).
    const usage = completed?.usage ?? events.findLast((e) => e.usage)?.usage;
    const spent = tokenCost(
      prices,
      Number(usage?.input_tokens ?? 0) || 0,
      Number(usage?.output_tokens ?? 0) || 0,
    );
    if (failed !== null) {
      const cls = classifyCodexFailure(failed, reconnects) ?? 'failed';
      const retried = reconnects > 0 ? ` (after ${reconnects} reconnect${reconnects === 1 ? '' : 's'})` : '';
      return costing(fail(cls, finish.label, `codex turn failed${retried}: ${failed.slice(0, 300)}`), spent);
    }
    if (!completed) {
      const why = lastError ? `: ${lastError.slice(0, 300)}` : '';
      return fail('failed', finish.label, `codex ended without a completed turn${why}`);
    }
    if (message === null)
      return costing(fail('failed', finish.label, 'codex completed its turn without a final message'), spent);
    const input = Number(completed.usage?.input_tokens ?? 0) || 0;
    const output = Number(completed.usage?.output_tokens ?? 0) || 0;
    // Codex checks the served model itself and says when it differs; silence means it got the one it asked for.
    const served = rerouted ?? finish.pinnedModel ?? null;
    return finishText(message, { ...finish, servedModel: served, costUsd: tokenCost(prices, input, output) });
  };
}
