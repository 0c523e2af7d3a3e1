/**
 * What the two HTTP adapters share: the API key read by name from the
 * environment (never stored, never in a message), and the classification of a
 * call stopped by its deadline or by the controller.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import { parseRetryAfter } from '../core/retry-policy.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import { classifySdkError } from './classify.js';
import { labelFor, type ReviewerContext } from './command.js';
import type { CallDeadline } from './deadline.js';
import { redact, secretValues } from './redact.js';
import { fail } from './reply-result.js';

export type HttpCall = (
  cfg: AgentConfig | ReviewerConfig,
  req: CallRequest,
  label: string,
  apiKey: string,
) => Promise<CallResult>;

export function createHttpReviewer(
  cfg: AgentConfig | ReviewerConfig,
  ctx: ReviewerContext,
  defaultKeyEnv: string,
  call: HttpCall,
): Reviewer {
  const label = labelFor(ctx.role, ctx.name);
  const keyEnv = cfg.apiKeyEnv ?? defaultKeyEnv;
  return {
    name: ctx.name,
    // The model sees the prompt only; nothing of the checkout.
    usesCheckout: false,
    // Both protocols cache a prompt's prefix (anthropic by cache_control, openai automatically).
    cachesPrefix: true,
    async call(req: CallRequest): Promise<CallResult> {
      const apiKey = ctx.env[keyEnv];
      if (!apiKey) return fail('missing_context', label, `API key variable ${keyEnv} is not set`);
      const result = await call(cfg, req, label, apiKey);
      return result.ok
        ? result
        : { ...result, detail: redact(result.detail, secretValues(ctx.env, [apiKey])) };
    },
  };
}

/** A passed deadline is `timeout` (retried); the controller's own abort is `unknown`; null while neither. */
export function stoppedBy(deadline: CallDeadline, label: string): CallResult | null {
  const cause = deadline.cause();
  if (cause === 'deadline') return fail('timeout', label, 'no complete reply before the deadline');
  if (cause === 'aborted') return fail('unknown', label, 'interrupted: the call was aborted by revloop');
  return null;
}

/** An SDK error during a call, classified once for both protocols (Retry-After honoured). */
export function streamFailure(err: unknown, streamStarted: boolean, label: string): CallResult {
  const c = classifySdkError(err, streamStarted);
  const msg = (err as Error)?.message ?? String(err);
  return fail(
    c.cls,
    label,
    `${c.why}: ${msg.slice(0, 300)}`,
    parseRetryAfter(c.retryAfterHeader, Date.now()),
  );
}
