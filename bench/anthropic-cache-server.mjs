// A loopback Anthropic Messages endpoint whose prompt cache behaves like
// Anthropic's, for the prompt-caching bench (P10). A request's cacheable
// prefix is everything up to and including the last content block marked
// `cache_control` (the tools, the tool choice, the system prompt and the
// messages before it, as Anthropic orders them). A prefix written earlier
// by an identical prefix is read; otherwise it is written. A prefix under
// the minimum cacheable length (1024 tokens, as for Sonnet and Opus) is not
// cached at all. Tokens are counted as 4 bytes each, the same for both runs.
// With `caching: false` every input token is reported as plain input.
// As at Anthropic, a prefix is cached only once the request that writes it has
// been read: each reply starts after `prefillMs`, and a request that arrives
// before then pays to write the same prefix again; the rest of the reply
// follows `generateMs` after its first event. Concurrent calls of one
// prefix therefore save nothing unless the first one warms the cache.
// Every reply is the forced tool's input: `reply(requestBody)`.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

const MIN_CACHEABLE_TOKENS = 1024;
const tokens = (text) => Math.ceil(Buffer.byteLength(text) / 4);

export async function startCacheServer({ caching, reply, prefillMs = 200, generateMs = 300 }) {
  const written = new Set();
  const tally = { calls: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (b) => parts.push(b));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const { usage, key } = account(body, caching, written);
      setTimeout(() => respond(body, usage, key, res), prefillMs);
    });
  });
  const respond = (body, usage, key, res) => {
    if (key) written.add(key);
    const text = JSON.stringify(reply(body));
    usage.output_tokens = tokens(text);
    tally.calls++;
    tally.input += usage.input_tokens;
    tally.cacheRead += usage.cache_read_input_tokens;
    tally.cacheWrite += usage.cache_creation_input_tokens;
    tally.output += usage.output_tokens;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (type, v) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...v })}\n\n`);
    const name = body.tool_choice?.name;
    send('message_start', {
      message: {
        id: `msg_${tally.calls}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    // The reply is generated after its first event: a call that waits for another's first event
    // waits one prefill, not the whole call.
    setTimeout(() => finish(send, name, text, usage, res), generateMs);
  };
  const finish = (send, name, text, usage, res) => {
    if (name) {
      send('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name, input: {} },
      });
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: text } });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', {
      delta: { stop_reason: name ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    send('message_stop', {});
    res.end();
  };
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    tally,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The usage Anthropic would report for this request, writing the cache as it would. */
function account(body, caching, written) {
  const blocks = [];
  const head = JSON.stringify([
    body.model,
    body.tools ?? null,
    body.tool_choice ?? null,
    body.system ?? null,
  ]);
  for (const m of body.messages) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of content) blocks.push({ role: m.role, ...b });
  }
  const textOf = (bs) => bs.map((b) => b.text ?? JSON.stringify(b)).join('');
  const all = tokens(head) + tokens(textOf(blocks));
  const cut = caching ? blocks.findLastIndex((b) => b.cache_control) : -1;
  const none = { usage: { input_tokens: all, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } };
  if (cut < 0) return none;
  const prefix = blocks.slice(0, cut + 1);
  const prefixTokens = tokens(head) + tokens(textOf(prefix));
  if (prefixTokens < MIN_CACHEABLE_TOKENS) return none;
  const key = createHash('sha256')
    .update(head)
    .update(JSON.stringify(prefix.map(({ cache_control, ...b }) => b)))
    .digest('hex');
  const rest = all - prefixTokens;
  if (written.has(key))
    return {
      usage: { input_tokens: rest, cache_read_input_tokens: prefixTokens, cache_creation_input_tokens: 0 },
    };
  // Cached once this request has been read (the server marks it when its reply starts).
  return {
    usage: { input_tokens: rest, cache_read_input_tokens: 0, cache_creation_input_tokens: prefixTokens },
    key,
  };
}
