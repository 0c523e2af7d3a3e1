/**
 * The `anthropic` adapter: the Messages API through the official SDK,
 * streamed, the SDK's own retries off (the controller retries under the call
 * key). The SDK is imported on first call.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import type { ReviewerContext } from './command.js';
import { startDeadline } from './deadline.js';
import { createHttpReviewer, stoppedBy, streamFailure } from './http-reviewer.js';
import { fail, finishText, tokenCost } from './reply-result.js';

export const DEFAULT_ANTHROPIC_KEY_ENV = 'ANTHROPIC_API_KEY';
/** The Messages API requires max_tokens; a review reply rarely needs more. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

export function createAnthropicReviewer(cfg: AgentConfig | ReviewerConfig, ctx: ReviewerContext): Reviewer {
  return createHttpReviewer(cfg, ctx, DEFAULT_ANTHROPIC_KEY_ENV, callAnthropic);
}

async function callAnthropic(
  cfg: AgentConfig | ReviewerConfig,
  req: CallRequest,
  label: string,
  apiKey: string,
): Promise<CallResult> {
  const deadline = startDeadline(req.deadlineMs, req.signal);
  const stopped = (): CallResult | null => stoppedBy(deadline, label);
  let started = false;
  let text = '';
  let stopReason: string | null = null;
  let sawStop = false;
  let model: string | null = null;
  let inputTokens = 0;
  let outputTokens = 0;
  try {
    const early = stopped();
    if (early) return early;
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({
      apiKey,
      baseURL: cfg.baseURL ?? 'https://api.anthropic.com',
      maxRetries: 0,
      timeout: Math.max(1, deadline.remainingMs),
      logLevel: 'off',
    });
    const stream = await client.messages.create(
      {
        model: cfg.model ?? '',
        max_tokens: cfg.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
        messages: [{ role: 'user', content: req.prompt }],
        stream: true,
      },
      { signal: deadline.signal },
    );
    started = true;
    for await (const ev of stream) {
      if (ev.type === 'message_start') {
        model = ev.message.model || null;
        inputTokens = ev.message.usage?.input_tokens ?? 0;
        outputTokens = ev.message.usage?.output_tokens ?? 0;
      } else if (ev.type === 'content_block_delta') {
        if (ev.delta.type === 'text_delta') text += ev.delta.text;
      } else if (ev.type === 'message_delta') {
        stopReason = ev.delta.stop_reason ?? stopReason;
        outputTokens = ev.usage?.output_tokens ?? outputTokens;
        inputTokens = ev.usage?.input_tokens ?? inputTokens;
      } else if (ev.type === 'message_stop') {
        sawStop = true;
      }
    }
  } catch (err) {
    return stoppedBy(deadline, label) ?? streamFailure(err, started, label);
  } finally {
    deadline.dispose();
  }
  const s = stopped();
  if (s) return s;
  if (stopReason === 'refusal') return fail('refused', label, 'the model refused (stop_reason "refusal")');
  if (stopReason === 'max_tokens' || stopReason === 'model_context_window_exceeded')
    return fail('truncated', label, `the reply hit its token limit (stop_reason "${stopReason}")`);
  if (stopReason === 'pause_turn')
    return fail('truncated', label, 'the model paused its turn (stop_reason "pause_turn")');
  if (!sawStop || stopReason === null)
    return fail('truncated', label, 'the stream ended before message_stop');
  return finishText(text, {
    role: req.role,
    label,
    pinnedModel: cfg.model,
    servedModel: model,
    costUsd: tokenCost(cfg.prices, inputTokens, outputTokens),
  });
}
