/**
 * A loopback model endpoint that misbehaves on cue. It speaks OpenAI chat
 * completions (`POST /v1/chat/completions`, streamed SSE or plain JSON) and
 * the Anthropic Messages API (`POST /v1/messages`, streamed SSE), and answers
 * each request with the next queued fault. Every request is recorded so
 * tests can count attempts and look for leaked keys.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  /**
   * A complete reply; `model` overrides the requested model (drift). The cache
   * counts are reported as each protocol does: Anthropic apart from
   * `input_tokens`, OpenAI inside `prompt_tokens` (`cached_tokens`).
   */
  | {
      kind: 'ok';
      text: string;
      model?: string;
      inputTokens?: number;
      outputTokens?: number;
      cacheReadTokens?: number;
      cacheWriteTokens?: number;
      /** Anthropic: the reply as the input of the tool the request forces (a `tool_use` block). */
      asTool?: boolean;
    }
  /** HTTP 429; `retryAfter` is sent verbatim (delta-seconds or an HTTP-date). */
  | { kind: 'rate_limited'; retryAfter?: string }
  /** Any HTTP error status with the protocol's error body (503, 529, 500, 401...). */
  | { kind: 'status'; status: number; errorType?: string; message?: string }
  /** The socket is destroyed before any response. */
  | { kind: 'reset_before' }
  /** Some of the text is streamed, then the socket is destroyed. */
  | { kind: 'reset_mid_stream'; text: string }
  /** Some of the text is streamed, then the response ends cleanly without a finish. */
  | { kind: 'cut'; text: string }
  /** The model refuses (OpenAI `refusal` delta; Anthropic `stop_reason: "refusal"`). */
  | { kind: 'refusal'; text?: string }
  /** OpenAI `finish_reason: "content_filter"`. */
  | { kind: 'content_filter' }
  /** Text then `finish_reason: "length"` / `stop_reason: "max_tokens"`. */
  | { kind: 'truncated'; text: string }
  /** Anthropic: a streamed `event: error` after the message started. */
  | { kind: 'error_event'; errorType: string }
  /** Headers are sent, then nothing until the client goes away. */
  | { kind: 'stall' };

export const faults = {
  ok: (text: string, model?: string): Fault => (model ? { kind: 'ok', text, model } : { kind: 'ok', text }),
  json: (value: unknown, model?: string): Fault => faults.ok(JSON.stringify(value), model),
  /** Anthropic: the value as the forced tool's input; OpenAI: the value as content. */
  tool: (value: unknown, usage: { cacheReadTokens?: number; cacheWriteTokens?: number } = {}): Fault => ({
    kind: 'ok',
    text: JSON.stringify(value),
    asTool: true,
    ...usage,
  }),
  rateLimited: (retryAfter?: string): Fault =>
    retryAfter ? { kind: 'rate_limited', retryAfter } : { kind: 'rate_limited' },
  status: (status: number, errorType?: string, message?: string): Fault => ({
    kind: 'status',
    status,
    ...(errorType ? { errorType } : {}),
    ...(message ? { message } : {}),
  }),
  resetBefore: (): Fault => ({ kind: 'reset_before' }),
  resetMidStream: (text = '{"verdict":'): Fault => ({ kind: 'reset_mid_stream', text }),
  cut: (text = '{"verdict":"pass",'): Fault => ({ kind: 'cut', text }),
  refusal: (text = "I can't help with that."): Fault => ({ kind: 'refusal', text }),
  contentFilter: (): Fault => ({ kind: 'content_filter' }),
  truncated: (text = '{"verdict":"findings","findings":[{"severity":'): Fault => ({
    kind: 'truncated',
    text,
  }),
  errorEvent: (errorType = 'overloaded_error'): Fault => ({ kind: 'error_event', errorType }),
  stall: (): Fault => ({ kind: 'stall' }),
};

export interface RecordedRequest {
  protocol: 'openai' | 'anthropic' | 'other';
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The fault that answered it, or 'none' when the queue was empty (answered 500). */
  fault: Fault['kind'] | 'none';
}

export interface FaultServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** For the openai SDK: `<url>/v1`. */
  openaiBaseURL: string;
  /** For the anthropic SDK (it appends `/v1/messages`). */
  anthropicBaseURL: string;
  push(...f: Fault[]): void;
  requests: RecordedRequest[];
  /** Faults still queued. */
  pending(): number;
  close(): Promise<void>;
}

const chunks = (text: string, size = 7): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

export async function startFaultServer(): Promise<FaultServer> {
  const queue: Fault[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      const path = (req.url ?? '').split('?')[0] ?? '';
      const protocol =
        path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : 'other';
      const fault = protocol === 'other' ? undefined : queue.shift();
      requests.push({
        protocol,
        method: req.method ?? '',
        path,
        headers: { ...req.headers },
        body,
        fault: fault?.kind ?? 'none',
      });
      let parsed: { model?: string; stream?: boolean } = {};
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        // answered below as whatever the fault says
      }
      if (!fault || protocol === 'other') {
        sendError(res, protocol, 500, 'api_error', 'fault server: no fault queued');
        return;
      }
      const model = parsed.model ?? 'unknown-model';
      if (protocol === 'openai') answerOpenAI(req, res, fault, model, parsed.stream === true);
      else answerAnthropic(req, res, fault, model, toolNameOf(parsed));
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    push: (...f) => queue.push(...f),
    requests,
    pending: () => queue.length,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

function sendError(
  res: ServerResponse,
  protocol: string,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) {
  const body =
    protocol === 'anthropic'
      ? { type: 'error', error: { type, message } }
      : { error: { message, type, code: null, param: null } };
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function startSse(res: ServerResponse) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

/** Shared HTTP-level faults; returns true when handled. */
function httpFault(req: IncomingMessage, res: ServerResponse, fault: Fault, protocol: string): boolean {
  switch (fault.kind) {
    case 'rate_limited':
      sendError(
        res,
        protocol,
        429,
        protocol === 'anthropic' ? 'rate_limit_error' : 'rate_limit_exceeded',
        'slow down',
        fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
      );
      return true;
    case 'status':
      sendError(
        res,
        protocol,
        fault.status,
        fault.errorType ?? (fault.status >= 500 ? 'api_error' : 'invalid_request_error'),
        fault.message ?? `status ${fault.status}`,
      );
      return true;
    case 'reset_before':
      req.socket.destroy();
      return true;
    case 'stall':
      // Headers only: the client waits for a body that never comes.
      startSse(res);
      res.flushHeaders();
      return true;
    default:
      return false;
  }
}

function answerOpenAI(
  req: IncomingMessage,
  res: ServerResponse,
  fault: Fault,
  requested: string,
  stream: boolean,
) {
  if (httpFault(req, res, fault, 'openai')) return;
  const model = fault.kind === 'ok' && fault.model ? fault.model : requested;
  const base = { id: 'chatcmpl-fault', object: 'chat.completion.chunk', created: 0, model };
  const text = 'text' in fault && typeof fault.text === 'string' ? fault.text : '';
  const finish =
    fault.kind === 'ok' || fault.kind === 'refusal'
      ? 'stop'
      : fault.kind === 'truncated'
        ? 'length'
        : fault.kind === 'content_filter'
          ? 'content_filter'
          : null;
  if (!stream) {
    const message =
      fault.kind === 'refusal'
        ? { role: 'assistant', content: null, refusal: fault.text ?? 'no' }
        : { role: 'assistant', content: text, refusal: null };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish ?? 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
    return;
  }
  startSse(res);
  const send = (v: unknown) => res.write(`data: ${JSON.stringify(v)}\n\n`);
  send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  const key = fault.kind === 'refusal' ? 'refusal' : 'content';
  for (const c of chunks(fault.kind === 'refusal' ? (fault.text ?? 'no') : text))
    send({ ...base, choices: [{ index: 0, delta: { [key]: c }, finish_reason: null }] });
  if (fault.kind === 'reset_mid_stream') {
    setTimeout(() => req.socket.destroy(), 20);
    return;
  }
  if (fault.kind === 'cut') {
    res.end();
    return;
  }
  send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  const input = fault.kind === 'ok' ? (fault.inputTokens ?? 1000) : 1000;
  const output = fault.kind === 'ok' ? (fault.outputTokens ?? 500) : 500;
  const cached = fault.kind === 'ok' ? (fault.cacheReadTokens ?? 0) : 0;
  send({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: input + cached,
      completion_tokens: output,
      total_tokens: input + cached + output,
      ...(cached ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    },
  });
  res.end('data: [DONE]\n\n');
}

/** The tool an Anthropic request forces (`tool_choice: { type: 'tool', name }`), if any. */
function toolNameOf(parsed: unknown): string | null {
  const choice = (parsed as { tool_choice?: { type?: unknown; name?: unknown } }).tool_choice;
  return choice?.type === 'tool' && typeof choice.name === 'string' ? choice.name : null;
}

function answerAnthropic(
  req: IncomingMessage,
  res: ServerResponse,
  fault: Fault,
  requested: string,
  toolName: string | null,
) {
  if (httpFault(req, res, fault, 'anthropic')) return;
  const model = fault.kind === 'ok' && fault.model ? fault.model : requested;
  const input = fault.kind === 'ok' ? (fault.inputTokens ?? 1000) : 1000;
  const output = fault.kind === 'ok' ? (fault.outputTokens ?? 500) : 500;
  startSse(res);
  const send = (type: string, v: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...v })}\n\n`);
  send('message_start', {
    message: {
      id: 'msg_fault',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: input,
        output_tokens: 1,
        cache_read_input_tokens: fault.kind === 'ok' ? (fault.cacheReadTokens ?? 0) : 0,
        cache_creation_input_tokens: fault.kind === 'ok' ? (fault.cacheWriteTokens ?? 0) : 0,
      },
    },
  });
  if (fault.kind === 'error_event') {
    res.end(
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: fault.errorType, message: 'fault' } })}\n\n`,
    );
    return;
  }
  const text =
    fault.kind === 'refusal' ? '' : 'text' in fault && typeof fault.text === 'string' ? fault.text : '';
  const asTool = fault.kind === 'ok' && fault.asTool === true && toolName !== null;
  if (asTool) {
    send('content_block_start', {
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_fault', name: toolName, input: {} },
    });
    for (const c of chunks(text))
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: c } });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const c of chunks(text))
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: c } });
  }
  if (fault.kind === 'reset_mid_stream') {
    setTimeout(() => req.socket.destroy(), 20);
    return;
  }
  if (fault.kind === 'cut') {
    res.end();
    return;
  }
  send('content_block_stop', { index: 0 });
  const stop =
    fault.kind === 'truncated'
      ? 'max_tokens'
      : fault.kind === 'refusal'
        ? 'refusal'
        : asTool
          ? 'tool_use'
          : 'end_turn';
  send('message_delta', {
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: output },
  });
  send('message_stop', {});
  res.end();
}
