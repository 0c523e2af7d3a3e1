/**
 * The `anthropic` adapter: the Messages API through the official SDK,
 * streamed, the SDK's own retries off (the controller retries under the call
 * key). The SDK is imported on first call.
 *
 * The reply is asked for as a forced call of one tool whose input schema is
 * the role's reply schema; an endpoint that answers it does not offer tools
 * gets the same prompt as plain JSON text, noted on the attempt. The
 * prompt's shared part (core/prompt.ts splitPrompt) is its own text block
 * marked `cache_control: ephemeral`, so the reviewers and rounds of one
 * revision read the prefix the first of them wrote.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import { splitPrompt } from '../core/prompt.js';
import { describeUsage, type TokenUsage, usageCost } from '../core/token-cost.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import type { ReviewerContext } from './command.js';
import type { CallDeadline } from './deadline.js';
import { createHttpReviewer, firstEventHook, streamedCall, streamFailure } from './http-reviewer.js';
import { fail, finishText } from './reply-result.js';
import { type Refused, replySchema } from './structured-output.js';

export const DEFAULT_ANTHROPIC_KEY_ENV = 'ANTHROPIC_API_KEY';
/** The Messages API requires max_tokens; a review reply rarely needs more. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

export function createAnthropicReviewer(cfg: AgentConfig | ReviewerConfig, ctx: ReviewerContext): Reviewer {
  return createHttpReviewer(cfg, ctx, DEFAULT_ANTHROPIC_KEY_ENV, callAnthropic);
}

interface Streamed {
  text: string;
  /** The forced tool's input as streamed JSON; null when no tool_use block came. */
  toolJson: string | null;
  stopReason: string | null;
  sawStop: boolean;
  model: string | null;
  usage: TokenUsage;
}

async function callAnthropic(
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
      const { default: Anthropic } = await import('@anthropic-ai/sdk');
      return new Anthropic({
        ...options,
        baseURL: cfg.baseURL ?? 'https://api.anthropic.com',
      });
    },
    (client, deadline, structured) => stream(client, cfg, req, label, deadline, structured),
  );
  if ('ok' in framed) return framed;
  const { streamed: got, note } = framed;
  const { stopReason } = got;
  if (stopReason === 'refusal') return fail('refused', label, 'the model refused (stop_reason "refusal")');
  if (stopReason === 'max_tokens' || stopReason === 'model_context_window_exceeded')
    return fail('truncated', label, `the reply hit its token limit (stop_reason "${stopReason}")`);
  if (stopReason === 'pause_turn')
    return fail('truncated', label, 'the model paused its turn (stop_reason "pause_turn")');
  if (!got.sawStop || stopReason === null)
    return fail('truncated', label, 'the stream ended before message_stop');
  const asked =
    note ??
    (got.toolJson !== null
      ? 'structured output (forced tool call)'
      : 'asked for a forced tool call; the endpoint answered in text');
  return finishText(got.toolJson ?? got.text, {
    role: req.role,
    label,
    pinnedModel: cfg.model,
    servedModel: got.model,
    costUsd: usageCost(cfg.prices, got.usage),
    structured: got.toolJson !== null,
    note: `${asked}; ${describeUsage(got.usage)}`,
  });
}

/** The prompt as content blocks: the shared part marked for the cache, then the call's own part. */
function contentOf(prompt: string) {
  const { shared, own } = splitPrompt(prompt);
  if (!shared) return [{ type: 'text' as const, text: prompt }];
  return [
    { type: 'text' as const, text: shared, cache_control: { type: 'ephemeral' as const } },
    { type: 'text' as const, text: own },
  ];
}

/** One streamed request; `{ refusedStructured }` when the endpoint does not offer tools. */
async function stream(
  client: InstanceType<typeof import('@anthropic-ai/sdk').default>,
  cfg: AgentConfig | ReviewerConfig,
  req: CallRequest,
  label: string,
  deadline: CallDeadline,
  structured: boolean,
): Promise<Streamed | CallResult | Refused> {
  const out: Streamed = {
    text: '',
    toolJson: null,
    stopReason: null,
    sawStop: false,
    model: null,
    usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
  };
  let started = false;
  const firstEvent = firstEventHook(req);
  const toolBlocks = new Set<number>();
  try {
    const { name, schema } = replySchema(req.role);
    const temperature = req.sampling?.temperature;
    const events = await client.messages.create(
      {
        model: cfg.model ?? '',
        max_tokens: cfg.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
        messages: [{ role: 'user', content: contentOf(req.prompt) }],
        stream: true,
        // The Messages API has no seed.
        ...(temperature != null ? { temperature } : {}),
        ...(structured
          ? {
              tools: [
                {
                  name,
                  description: `Submit your ${req.role} reply. Call it exactly once.`,
                  input_schema: schema as { type: 'object'; [k: string]: unknown },
                },
              ],
              tool_choice: { type: 'tool' as const, name, disable_parallel_tool_use: true },
            }
          : {}),
      },
      { signal: deadline.signal },
    );
    started = true;
    for await (const ev of events) {
      firstEvent();
      if (ev.type === 'message_start') {
        out.model = ev.message.model || null;
        const u = ev.message.usage;
        out.usage = {
          inputTokens: u?.input_tokens ?? 0,
          cacheReadTokens: u?.cache_read_input_tokens ?? 0,
          cacheWriteTokens: u?.cache_creation_input_tokens ?? 0,
          outputTokens: u?.output_tokens ?? 0,
        };
      } else if (ev.type === 'content_block_start') {
        if (ev.content_block.type === 'tool_use' && ev.content_block.name === name) {
          toolBlocks.add(ev.index);
          out.toolJson ??= '';
        }
      } else if (ev.type === 'content_block_delta') {
        if (ev.delta.type === 'text_delta') out.text += ev.delta.text;
        else if (ev.delta.type === 'input_json_delta' && toolBlocks.has(ev.index))
          out.toolJson = (out.toolJson ?? '') + ev.delta.partial_json;
      } else if (ev.type === 'message_delta') {
        out.stopReason = ev.delta.stop_reason ?? out.stopReason;
        // Cumulative counts; a null leaves what message_start said.
        const u = ev.usage;
        out.usage = {
          inputTokens: u?.input_tokens ?? out.usage.inputTokens,
          cacheReadTokens: u?.cache_read_input_tokens ?? out.usage.cacheReadTokens,
          cacheWriteTokens: u?.cache_creation_input_tokens ?? out.usage.cacheWriteTokens,
          outputTokens: u?.output_tokens ?? out.usage.outputTokens,
        };
      } else if (ev.type === 'message_stop') {
        out.sawStop = true;
      }
    }
  } catch (err) {
    return streamFailure(err, { started, structured, deadline, label });
  }
  return out;
}
