/**
 * What the two HTTP adapters share: the API key read by name from the
 * environment (never stored, never in a message), the frame of one streamed
 * call (deadline, structured-output fallback, the first-event hook), and the
 * classification of a call stopped by its deadline or by the controller.
 */
import type { AgentConfig, ReviewerConfig } from '../core/config.js';
import { parseRetryAfter } from '../core/retry-policy.js';
import type { CallRequest, CallResult, Reviewer } from '../ports/reviewer.js';
import { classifySdkError } from './classify.js';
import { labelFor, type ReviewerContext } from './command.js';
import { type CallDeadline, startDeadline } from './deadline.js';
import { redact, secretValues } from './redact.js';
import { fail } from './reply-result.js';
import { type Refused, refusesStructuredOutput, structuredOrPlain } from './structured-output.js';

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

/**
 * The client options both SDKs take alike: the SDK's own retries off (the
 * controller retries under the call key, invariant 7), its timeout the
 * call's deadline, its logging off (a log line could carry the prompt).
 */
export interface SdkOptions {
  apiKey: string;
  maxRetries: 0;
  timeout: number;
  logLevel: 'off';
}

/**
 * One streamed call under its deadline, the same frame for both protocols:
 * nothing is sent once the call is already stopped; `open` makes the SDK
 * client (imported on first call) from the options both SDKs share;
 * `send` makes one request, asked again as plain text by structuredOrPlain
 * when the endpoint does not offer structured output. The SDKs end an
 * aborted stream quietly, so the deadline is checked after the stream too.
 * What the stream said is the protocol's to read; `note` is the fallback's.
 */
export async function streamedCall<C, T extends object>(
  req: CallRequest,
  label: string,
  apiKey: string,
  open: (options: SdkOptions) => Promise<C>,
  send: (client: C, deadline: CallDeadline, structured: boolean) => Promise<T | CallResult | Refused>,
): Promise<{ streamed: T; note: string | undefined } | CallResult> {
  const deadline = startDeadline(req.deadlineMs, req.signal);
  let got: T | CallResult;
  let note: string | undefined;
  try {
    const early = stoppedBy(deadline, label);
    if (early) return early;
    const client = await open({
      apiKey,
      maxRetries: 0,
      timeout: Math.max(1, deadline.remainingMs),
      logLevel: 'off',
    });
    ({ got, fallback: note } = await structuredOrPlain(label, (structured) =>
      send(client, deadline, structured),
    ));
  } finally {
    deadline.dispose();
  }
  if ('ok' in got) return got;
  return stoppedBy(deadline, label) ?? { streamed: got, note };
}

/** The request's onFirstBytes as a hook to call on every reply event: only the first one calls it. */
export function firstEventHook(req: CallRequest): () => void {
  let seen = false;
  return () => {
    if (seen) return;
    seen = true;
    req.onFirstBytes?.();
  };
}

/** A passed deadline is `timeout` (retried); the controller's own abort is `unknown`; null while neither. */
function stoppedBy(deadline: CallDeadline, label: string): CallResult | null {
  const cause = deadline.cause();
  if (cause === 'deadline') return fail('timeout', label, 'no complete reply before the deadline');
  if (cause === 'aborted') return fail('unknown', label, 'interrupted: the call was aborted by revloop');
  return null;
}

/**
 * An SDK error during one request, read once for both protocols: before the
 * stream started, a request asking for structured output may be the
 * endpoint saying it does not offer it (`Refused`, asked again as plain
 * text); a call its deadline or the controller stopped is classified as
 * such; anything else by the SDK error's shape (Retry-After honoured).
 */
export function streamFailure(
  err: unknown,
  at: { started: boolean; structured: boolean; deadline: CallDeadline; label: string },
): CallResult | Refused {
  const refused = at.structured && !at.started ? refusesStructuredOutput(err) : null;
  if (refused) return { refusedStructured: refused };
  return stoppedBy(at.deadline, at.label) ?? sdkFailure(err, at.started, at.label);
}

function sdkFailure(err: unknown, streamStarted: boolean, label: string): CallResult {
  const c = classifySdkError(err, streamStarted);
  const msg = (err as Error)?.message ?? String(err);
  return fail(
    c.cls,
    label,
    `${c.why}: ${msg.slice(0, 300)}`,
    parseRetryAfter(c.retryAfterHeader, Date.now()),
  );
}
