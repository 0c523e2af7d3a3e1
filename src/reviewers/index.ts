/**
 * The one way the composition root gets a Reviewer: an agent's config in, a
 * port implementation out. Provider SDKs load lazily inside their adapters,
 * so importing this module loads neither openai nor @anthropic-ai/sdk.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { CallResult, Reviewer } from '../ports/reviewer.js';
import { createAnthropicReviewer } from './anthropic.js';
import { claudeCodeArgv, readClaudeCode } from './claude-code.js';
import { codexArgv, readCodexWith } from './codex.js';
import { createCommandReviewer, type ReviewerContext, readPlainReply } from './command.js';
import { ReviewerConfigError } from './errors.js';
import { createOpenAIReviewer } from './openai.js';
import { redact, redactDeep, secretValues } from './redact.js';
import { createScriptedReviewer } from './scripted.js';

export type { ReviewerContext } from './command.js';
export { ReviewerConfigError } from './errors.js';

/**
 * Builds the adapter named by `cfg.adapter` (default `command`), its every
 * result redacted: a reply is text the change can steer, so a secret of the
 * job it quotes is gone before the loop records anything of the call.
 */
export function createReviewer(cfg: AgentConfig | ReviewerConfig, ctx: ReviewerContext): Reviewer {
  const keyEnv = 'apiKeyEnv' in cfg ? cfg.apiKeyEnv : undefined;
  return redacting(adapterFor(cfg, ctx), secretValues(ctx.env, [keyEnv ? ctx.env[keyEnv] : undefined]));
}

function redacting(reviewer: Reviewer, secrets: readonly string[]): Reviewer {
  const clean = (res: CallResult): CallResult => {
    if (!res.ok) return { ...res, detail: redact(res.detail, secrets) };
    const out: CallResult = { ...res, reply: redactDeep(res.reply, secrets) };
    if (res.note !== undefined) out.note = redact(res.note, secrets);
    if (res.modelId !== null) out.modelId = redact(res.modelId, secrets);
    return out;
  };
  return { ...reviewer, call: async (req) => clean(await reviewer.call(req)) };
}

function adapterFor(cfg: AgentConfig | ReviewerConfig, ctx: ReviewerContext): Reviewer {
  const adapter = cfg.adapter ?? 'command';
  switch (adapter) {
    case 'command':
      if (!cfg.command)
        throw new ReviewerConfigError(`reviewer "${ctx.name}": adapter "command" needs "command"`);
      return createCommandReviewer(cfg, ctx, { argv: cfg.command, read: readPlainReply });
    case 'claude-code':
      return createCommandReviewer(cfg, ctx, {
        argv: claudeCodeArgv(cfg, ctx.role),
        read: readClaudeCode,
        notFound: 'install Claude Code: npm install -g @anthropic-ai/claude-code, or set the command: to run',
      });
    case 'codex':
      return createCommandReviewer(cfg, ctx, {
        argv: (req) => codexArgv(cfg, ctx.role, [req.repoDir, ctx.repoRoot]),
        read: readCodexWith(cfg.prices),
        notFound: 'install Codex: npm install -g @openai/codex, or set the command: to run',
      });
    case 'scripted':
      if (!cfg.script)
        throw new ReviewerConfigError(`reviewer "${ctx.name}": adapter "scripted" needs "script"`);
      return createScriptedReviewer(cfg, ctx);
    case 'openai':
      return createOpenAIReviewer(cfg, ctx);
    case 'anthropic':
      return createAnthropicReviewer(cfg, ctx);
    default: {
      const never: never = adapter;
      throw new ReviewerConfigError(`unknown adapter ${String(never)}`);
    }
  }
}
