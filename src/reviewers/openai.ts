/**
 * The `openai` adapter: any OpenAI-compatible chat completions endpoint,
 * through the official SDK, streamed, with the SDK's own retries off (the
 * controller retries under the call key, invariant 7). The SDK is imported
 * on first call so loading the adapters never loads it.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import type { ReviewerContext } from './command.js';
import { startDeadline } from './deadline.js';
import { createHttpReviewer, stoppedBy, streamFailure } from './http-reviewer.js';
import { fail, finishText, tokenCost } from './reply-result.js';

export const DEFAULT_OPENAI_KEY_ENV = 'OPENAI_API_KEY';

export function createOpenAIReviewer(cfg: AgentConfig | ReviewerConfig, ctx: ReviewerContext): Reviewer {
  return createHttpReviewer(cfg, ctx, DEFAULT_OPENAI_KEY_ENV, callOpenAI);
}

async function callOpenAI(
  cfg: AgentConfig | ReviewerConfig,
  req: CallRequest,
  label: string,
  apiKey: string,
): Promise<CallResult> {
  const deadline = startDeadline(req.deadlineMs, req.signal);
  const stopped = (): CallResult | null => stoppedBy(deadline, label);
  let started = false;
  let content = '';
  let refusal = '';
  let finishReason: string | null = null;
  let model: string | null = null;
  let inputTokens = 0;
  let outputTokens = 0;
  try {
    const early = stopped();
    if (early) return early;
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({
      apiKey,
      baseURL: cfg.baseURL ?? 'https://api.openai.com/v1',
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: Math.max(1, deadline.remainingMs),
      logLevel: 'off',
    });
    const stream = await client.chat.completions.create(
      {
        model: cfg.model ?? '',
        messages: [{ role: 'user', content: req.prompt }],
        stream: true,
        stream_options: { include_usage: true },
        ...(cfg.maxTokens ? { max_tokens: cfg.maxTokens } : {}),
      },
      { signal: deadline.signal },
    );
    started = true;
    for await (const chunk of stream) {
      if (!model && chunk.model) model = chunk.model;
      const choice = chunk.choices?.[0];
      if (choice?.delta?.content) content += choice.delta.content;
      if (choice?.delta?.refusal) refusal += choice.delta.refusal;
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      if (chunk.usage) {
        inputTokens = chunk.usage.prompt_tokens ?? inputTokens;
        outputTokens = chunk.usage.completion_tokens ?? outputTokens;
      }
    }
  } catch (err) {
    return stoppedBy(deadline, label) ?? streamFailure(err, started, label);
  } finally {
    deadline.dispose();
  }
  // The SDK ends an aborted stream quietly, so the deadline is checked after the loop too.
  const s = stopped();
  if (s) return s;
  if (refusal) return fail('refused', label, `the model refused: ${refusal.slice(0, 300)}`);
  if (finishReason === 'content_filter')
    return fail('refused', label, 'the reply was withheld by a content filter');
  if (finishReason === 'length')
    return fail('truncated', label, 'the reply hit its token limit (finish_reason "length")');
  if (finishReason === null) return fail('truncated', label, 'the stream ended before a finish reason');
  return finishText(content, {
    role: req.role,
    label,
    pinnedModel: cfg.model,
    servedModel: model,
    costUsd: tokenCost(cfg.prices, inputTokens, outputTokens),
  });
}
