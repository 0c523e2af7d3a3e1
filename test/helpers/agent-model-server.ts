/**
 * A loopback model server for the real agent CLIs: the Anthropic Messages API
 * (`POST /v1/messages`, streamed) for Claude Code and the OpenAI Responses API
 * (`POST /v1/responses`, streamed) for Codex. Each model request is answered
 * with the next queued answer. It listens on 127.0.0.1 and on a Unix socket,
 * so a CLI shut in a network namespace with only loopback can reach it through
 * a bridge (test/helpers/netless-bridge.mjs) and nothing else.
 *
 * It is also the CLIs' HTTP(S) proxy: any request for another host (a CONNECT,
 * or an absolute URL naming another host) is recorded in `egress` and refused,
 * so a test can say that nothing tried to leave the machine, or what did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type ModelAnswer =
  /** A complete streamed reply; `servedModel` is the model the server says it used (drift when ≠ requested). */
  | { kind: 'ok'; text: string; servedModel?: string }
  /** An HTTP error status with the protocol's error body. */
  | { kind: 'status'; status: number; errorType?: string; message?: string }
  /** The stream starts, then nothing more is sent until the client goes away. */
  | { kind: 'hang' }
  /**
   * A call of one of the CLI's own tools (Claude Code's `Read`, `Write`; Codex's
   * `exec_command`), its input made from the CLI's working directory (read from the request).
   */
  | { kind: 'tool'; name: string; input: (cwd: string) => Record<string, unknown> };

export const answers = {
  ok: (text: string, servedModel?: string): ModelAnswer =>
    servedModel ? { kind: 'ok', text, servedModel } : { kind: 'ok', text },
  json: (value: unknown, servedModel?: string): ModelAnswer => answers.ok(JSON.stringify(value), servedModel),
  status: (status: number, errorType?: string, message?: string): ModelAnswer => ({
    kind: 'status',
    status,
    ...(errorType ? { errorType } : {}),
    ...(message ? { message } : {}),
  }),
  hang: (): ModelAnswer => ({ kind: 'hang' }),
  tool: (name: string, input: (cwd: string) => Record<string, unknown>): ModelAnswer => ({
    kind: 'tool',
    name,
    input,
  }),
};

/** The working directory a CLI tells its model: Claude Code's environment section, Codex's `<cwd>`. */
function cwdOf(body: string): string {
  const m = /Primary working directory: ([^\n\\"]+)|<cwd>([^<]+)<\/cwd>/.exec(body);
  return m?.[1] ?? m?.[2] ?? '.';
}

export interface ModelRequest {
  protocol: 'anthropic' | 'responses';
  model: string | null;
  answer: ModelAnswer['kind'] | 'none';
  /** The CLI session that asked (one per CLI run): Claude Code's session id, Codex's thread id. */
  session: string | null;
  headers: Record<string, string | string[] | undefined>;
  /** The request body as sent (a tool call's answer is made from it: the CLI's working directory). */
  body: string;
}

export interface AgentModelServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The Unix socket the namespace bridge connects to. */
  socketPath: string;
  push(...a: ModelAnswer[]): void;
  pending(): number;
  /** Drops the answers still queued; returns how many there were. */
  clear(): number;
  requests: ModelRequest[];
  /** Hosts something tried to reach through the proxy (refused). */
  egress: string[];
  close(): Promise<void>;
}

export async function startAgentModelServer(): Promise<AgentModelServer> {
  const queue: ModelAnswer[] = [];
  const requests: ModelRequest[] = [];
  const egress: string[] = [];
  const sockets = new Set<Socket>();
  const dir = mkdtempSync(join(tmpdir(), 'revloop-model-'));
  const socketPath = join(dir, 'model.sock');
  let port = 0;

  const http = createServer((req, res) => {
    const target = targetOf(req, port);
    if (target.foreign) {
      egress.push(target.host);
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('loopback model server: no traffic leaves this machine\n');
      return;
    }
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const protocol =
        target.path === '/v1/messages' ? 'anthropic' : /\/responses$/.test(target.path) ? 'responses' : null;
      if (!protocol || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"type":"not_found_error","message":"not a model endpoint"}}');
        return;
      }
      let model: string | null = null;
      const raw = Buffer.concat(parts).toString('utf8');
      try {
        const body = JSON.parse(raw) as { model?: unknown };
        if (typeof body.model === 'string') model = body.model;
      } catch {
        // answered below; the model stays unknown
      }
      const answer = queue.shift();
      requests.push({
        protocol,
        model,
        answer: answer?.kind ?? 'none',
        session: sessionOf(req),
        headers: { ...req.headers },
        body: raw,
      });
      const a = answer ?? answers.status(500, 'api_error', 'loopback model server: nothing queued');
      if (protocol === 'anthropic') answerAnthropic(res, a, model ?? 'unknown-model', raw);
      else answerResponses(res, a, model ?? 'unknown-model', raw);
    });
  });
  // A CONNECT is a client using us as its HTTPS proxy for some other host: refuse it.
  http.on('connect', (req: IncomingMessage, socket: Socket) => {
    egress.push(req.url ?? '?');
    // A client that gives up on the proxy first (a CLI on a loaded machine) has closed its end:
    // the refusal then meets EPIPE, which is no fault of the test.
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const unix = createNetServer((s) => http.emit('connection', s));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  port = (http.address() as AddressInfo).port;
  await new Promise<void>((r) => unix.listen(socketPath, r));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    socketPath,
    push: (...a) => queue.push(...a),
    pending: () => queue.length,
    clear: () => queue.splice(0).length,
    requests,
    egress,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([closeServer(http), closeServer(unix)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sessionOf(req: IncomingMessage): string | null {
  const claude = req.headers['x-claude-code-session-id'];
  if (typeof claude === 'string') return claude;
  const window = req.headers['x-codex-window-id'];
  if (typeof window === 'string') return window.split(':')[0] ?? window;
  return null;
}

function closeServer(s: Server | ReturnType<typeof createNetServer>): Promise<void> {
  return new Promise((r) => s.close(() => r()));
}

/** The path asked for, and whether the request was meant for a host other than this server. */
function targetOf(req: IncomingMessage, port: number): { foreign: boolean; host: string; path: string } {
  const raw = req.url ?? '/';
  if (!/^https?:\/\//.test(raw)) return { foreign: false, host: '', path: raw.split('?')[0] ?? '' };
  const u = new URL(raw);
  const local = (u.hostname === '127.0.0.1' || u.hostname === 'localhost') && Number(u.port) === port;
  return { foreign: !local, host: u.host, path: u.pathname };
}

function sendStatus(
  res: ServerResponse,
  protocol: 'anthropic' | 'responses',
  a: ModelAnswer & { kind: 'status' },
) {
  const type =
    a.errorType ??
    (a.status === 429 ? 'rate_limit_error' : a.status >= 500 ? 'api_error' : 'invalid_request_error');
  const message = a.message ?? `status ${a.status}`;
  const body =
    protocol === 'anthropic'
      ? { type: 'error', error: { type, message } }
      : { error: { type, message, code: type } };
  // retry-after 0: a CLI that retries on its own does so at once (the tests set its retries to 0 anyway).
  res.writeHead(a.status, { 'content-type': 'application/json', 'retry-after': '0' });
  res.end(JSON.stringify(body));
}

function answerAnthropic(res: ServerResponse, a: ModelAnswer, requested: string, body: string) {
  if (a.kind === 'status') return sendStatus(res, 'anthropic', a);
  const model = a.kind === 'ok' && a.servedModel ? a.servedModel : requested;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, v: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...v })}\n\n`);
  send('message_start', {
    message: {
      id: 'msg_loopback',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1200, output_tokens: 1 },
    },
  });
  if (a.kind === 'hang') return;
  const endMessage = (stopReason: string, outputTokens: number) => {
    send('content_block_stop', { index: 0 });
    send('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    send('message_stop', {});
    res.end();
  };
  if (a.kind === 'tool') {
    const id = `toolu_loopback_${++toolCalls}`;
    send('content_block_start', {
      index: 0,
      content_block: { type: 'tool_use', id, name: a.name, input: {} },
    });
    const json = JSON.stringify(a.input(cwdOf(body)));
    for (const c of chunks(json))
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: c } });
    return endMessage('tool_use', 40);
  }
  send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  for (const c of chunks(a.text))
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: c } });
  endMessage('end_turn', 80);
}

let toolCalls = 0;

function answerResponses(res: ServerResponse, a: ModelAnswer, requested: string, body: string) {
  if (a.kind === 'status') return sendStatus(res, 'responses', a);
  const served = a.kind === 'ok' && a.servedModel ? a.servedModel : requested;
  // Codex compares the `openai-model` header with the model it asked for and reports a reroute.
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'openai-model': served,
  });
  let seq = 0;
  const send = (type: string, v: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...v })}\n\n`);
  const response = {
    id: 'resp_loopback',
    object: 'response',
    created_at: 0,
    status: 'in_progress',
    model: served,
    output: [],
  };
  send('response.created', { response });
  if (a.kind === 'hang') return;
  const usage = {
    input_tokens: 1200,
    output_tokens: 80,
    total_tokens: 1280,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  if (a.kind === 'tool') {
    const n = ++toolCalls;
    const args = JSON.stringify(a.input(cwdOf(body)));
    const call = {
      id: `fc_loopback_${n}`,
      type: 'function_call',
      call_id: `call_loopback_${n}`,
      name: a.name,
    };
    send('response.output_item.added', {
      output_index: 0,
      item: { ...call, arguments: '', status: 'in_progress' },
    });
    send('response.function_call_arguments.delta', { output_index: 0, item_id: call.id, delta: args });
    send('response.function_call_arguments.done', { output_index: 0, item_id: call.id, arguments: args });
    const done = { ...call, arguments: args, status: 'completed' };
    send('response.output_item.done', { output_index: 0, item: done });
    send('response.completed', { response: { ...response, status: 'completed', output: [done], usage } });
    res.end();
    return;
  }
  const item = {
    id: 'msg_loopback',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: a.text, annotations: [] }],
  };
  send('response.output_item.added', {
    output_index: 0,
    item: { ...item, status: 'in_progress', content: [] },
  });
  for (const c of chunks(a.text))
    send('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: c });
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', {
    response: {
      ...response,
      status: 'completed',
      output: [item],
      usage,
    },
  });
  res.end();
}

function chunks(text: string, size = 40): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}
