/**
 * The `openai` adapter: any OpenAI-compatible chat completions endpoint,
 * through the official SDK, streamed, with the SDK's own retries off (the
 * controller retries under the call key, invariant 7). The SDK is imported
 * on first call so loading the adapters never loads it.
 *
 * The reply is asked for as structured output (`response_format` json_schema,
 * strict); an endpoint that answers it does not offer that gets the same
 * prompt as plain JSON text, noted on the attempt. Prompt caching is the
 * endpoint's own, on an identical prefix: the prompt puts its shared part
 * first (core/prompt.ts), and the usage's cached tokens are priced apart.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import { describeUsage, type TokenUsage, usageCost } from '../core/token-cost.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import type { ReviewerContext } from './command.js';
import type { CallDeadline } from './deadline.js';
import { createHttpReviewer, firstEventHook, streamedCall, streamFailure } from './http-reviewer.js';
import { fail, finishText } from './reply-result.js';
import { type Refused, replySchema } from './structured-output.js';

export const DEFAULT_OPENAI_KEY_ENV = 'OPENAI_API_KEY';

export function createOpenAIReviewer(cfg: AgentConfig | ReviewerConfig, ctx: ReviewerContext): Reviewer {
  return createHttpReviewer(cfg, ctx, DEFAULT_OPENAI_KEY_ENV, callOpenAI);
}

interface Streamed {
  content: string;
  refusal: string;
  finishReason: string | null;
  model: string | null;
  usage: TokenUsage;
}

async function callOpenAI(
  cfg: AgentConfig | ReviewerConfig,
  req: CallRequest,
  label: string,
  apiKey: string,
): Promise<CallResult> {
  const framed = await streamedCall(
    req,
    label,
    apiKey,
    async (options) => {
      const { default: OpenAI } = await import('openai');
      return new OpenAI({
        ...options,
        baseURL: cfg.baseURL ?? 'https://api.openai.com/v1',
        organization: null,
        project: null,
      });
    },
    (client, deadline, structured) => stream(client, cfg, req, label, deadline, structured),
  );
  if ('ok' in framed) return framed;
  const { streamed: got, note } = framed;
  if (got.refusal) return fail('refused', label, `the model refused: ${got.refusal.slice(0, 300)}`);
  if (got.finishReason === 'content_filter')
    return fail('refused', label, 'the reply was withheld by a content filter');
  if (got.finishReason === 'length')
    return fail('truncated', label, 'the reply hit its token limit (finish_reason "length")');
  if (got.finishReason === null) return fail('truncated', label, 'the stream ended before a finish reason');
  const usageLine = describeUsage(got.usage);
  return finishText(got.content, {
    role: req.role,
    label,
    pinnedModel: cfg.model,
    servedModel: got.model,
    costUsd: usageCost(cfg.prices, got.usage),
    structured: note === undefined,
    note: note ? `${note}; ${usageLine}` : `structured output (response_format json_schema); ${usageLine}`,
  });
}

/** One streamed request; `{ refusedStructured }` when the endpoint does not offer structured output. */
async function stream(
  client: InstanceType<typeof import('openai').default>,
  cfg: AgentConfig | ReviewerConfig,
  req: CallRequest,
  label: string,
  deadline: CallDeadline,
  structured: boolean,
): Promise<Streamed | CallResult | Refused> {
  const out: Streamed = {
    content: '',
    refusal: '',
    finishReason: null,
    model: null,
    usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
  };
  let started = false;
  try {
    const { name, schema } = replySchema(req.role);
    const temperature = req.sampling?.temperature;
    const seed = req.sampling?.seed;
    const chunks = await client.chat.completions.create(
      {
        model: cfg.model ?? '',
        messages: [{ role: 'user', content: req.prompt }],
        stream: true,
        stream_options: { include_usage: true },
        ...(cfg.maxTokens ? { max_tokens: cfg.maxTokens } : {}),
        ...(temperature != null ? { temperature } : {}),
        ...(seed !== undefined ? { seed } : {}),
        ...(structured
          ? { response_format: { type: 'json_schema', json_schema: { name, strict: true, schema } } }
          : {}),
      },
      { signal: deadline.signal },
    );
    started = true;
    const firstEvent = firstEventHook(req);
    for await (const chunk of chunks) {
      firstEvent();
      if (!out.model && chunk.model) out.model = chunk.model;
      const choice = chunk.choices?.[0];
      if (choice?.delta?.content) out.content += choice.delta.content;
      if (choice?.delta?.refusal) out.refusal += choice.delta.refusal;
      if (choice?.finish_reason) out.finishReason = choice.finish_reason;
      if (chunk.usage) {
        // prompt_tokens counts the cached ones too.
        const prompt = chunk.usage.prompt_tokens ?? 0;
        const cached = Math.min(prompt, chunk.usage.prompt_tokens_details?.cached_tokens ?? 0);
        out.usage = {
          inputTokens: prompt - cached,
          cacheReadTokens: cached,
          cacheWriteTokens: 0,
          outputTokens: chunk.usage.completion_tokens ?? 0,
        };
      }
    }
  } catch (err) {
    return streamFailure(err, { started, structured, deadline, label });
  }
  return out;
}
