/**
 * A local OpenAI-compatible chat-completions endpoint for the LLM planner's contract tests, as
 * https://platform.openai.com/docs/api-reference/chat/create documents it — only what denv uses:
 *   POST /v1/chat/completions   {model, messages: [{role, content}], temperature}
 *     → 200 {id, object: "chat.completion", created, model, choices: [{index, message: {role:
 *       "assistant", content, refusal: null}, logprobs: null, finish_reason: "stop"}], usage}
 * It checks what denv sends and answers like OpenAI when it is wrong, with the documented error
 * envelope `{error: {message, type, param, code}}`:
 *   401 invalid_api_key   without `Authorization: Bearer <key>` (the message echoes the key sent,
 *                         so tests prove denv redacts it)
 *   404                   any other path or method
 *   400                   a body that is not JSON (or not sent as application/json), another model than `model`, messages that are not
 *                         a non-empty array of {role: system|user|assistant, content: string} with a
 *                         system message first and a user message, or temperature other than 0
 * Accepted requests are answered from `replies` in order (a string: the assistant's content; an
 * object: that status and body); when the script runs out, 500. Every request is recorded; listens
 * on 127.0.0.1, an ephemeral port.
 */
import { startRecordingServer, type RecordedRequest } from './recording-server.js';

export type ScriptedReply = string | { readonly status: number; readonly body: unknown };

export interface FakeOpenAi {
  /** The base URL to configure: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  /** Every request, accepted or not. */
  readonly requests: RecordedRequest[];
  /** The `messages` of each accepted request, in order. */
  readonly chats: { role: string; content: string }[][];
  close(): Promise<void>;
}

export async function startOpenAiServer(o: { key: string; model: string; replies: readonly ScriptedReply[] }): Promise<FakeOpenAi> {
  const chats: { role: string; content: string }[][] = [];
  let next = 0;
  const server = await startRecordingServer((req, res, url, body) => {
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, message: string, type: string, code: string | null, param: string | null = null) => send(status, { error: { message, type, param, code } });

    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') return error(404, `Invalid URL (${req.method} ${url.pathname})`, 'invalid_request_error', null);
    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${o.key}`) {
      const sent = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '';
      return error(401, sent ? `Incorrect API key provided: ${sent}.` : "You didn't provide an API key.", 'invalid_request_error', 'invalid_api_key');
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return error(400, 'denv sends JSON: content-type application/json', 'invalid_request_error', null);
    const problem = checkBody(body, o.model);
    if (problem) return error(400, problem.message, 'invalid_request_error', problem.code, problem.param);
    chats.push((body as { messages: { role: string; content: string }[] }).messages);

    const reply = o.replies[next++];
    if (reply === undefined) return error(500, 'the test scripted no more replies', 'server_error', null);
    if (typeof reply !== 'string') return send(reply.status, reply.body);
    send(200, {
      id: `chatcmpl-${next}`,
      object: 'chat.completion',
      created: 1_700_000_000 + next,
      model: o.model,
      choices: [{ index: 0, message: { role: 'assistant', content: reply, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 100, total_tokens: 200 },
    });
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, requests: server.requests, chats, close: () => server.close() };
}

function checkBody(body: unknown, model: string): { message: string; code: string | null; param: string | null } | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { message: 'We could not parse the JSON body of your request.', code: null, param: null };
  const b = body as { model?: unknown; messages?: unknown; temperature?: unknown };
  if (b.model !== model) return { message: `The model \`${String(b.model)}\` does not exist or you do not have access to it.`, code: 'model_not_found', param: 'model' };
  if (!Array.isArray(b.messages) || b.messages.length === 0) return { message: "'messages' must be a non-empty array", code: null, param: 'messages' };
  for (const [i, m] of b.messages.entries()) {
    const msg = m as { role?: unknown; content?: unknown } | null;
    if (!msg || !['system', 'user', 'assistant'].includes(String(msg.role)) || typeof msg.content !== 'string') {
      return { message: `Invalid value at messages[${i}]: expected {role: system|user|assistant, content: string}`, code: null, param: `messages[${i}]` };
    }
  }
  const roles = (b.messages as { role: string }[]).map((m) => m.role);
  if (roles[0] !== 'system' || !roles.includes('user')) return { message: 'denv sends a system message first, then a user message', code: null, param: 'messages' };
  if (b.temperature !== 0) return { message: `denv plans at temperature 0, got ${JSON.stringify(b.temperature)}`, code: null, param: 'temperature' };
  return null;
}
