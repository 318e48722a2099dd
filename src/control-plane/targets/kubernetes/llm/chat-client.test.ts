import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAi, type ScriptedReply } from '../../../../../test/helpers/openai-server.js';
import { chatCompletion, LlmEndpointError, type ChatMessage } from './chat-client.js';

const KEY = 'sk-test-8f3a9c2e71d44b0b';
const MODEL = 'gpt-4.1-mini';
const messages: ChatMessage[] = [
  { role: 'system', content: 'the contract' },
  { role: 'user', content: 'the spec' },
];

let server: FakeOpenAi | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function start(replies: readonly ScriptedReply[]): Promise<FakeOpenAi> {
  server = await startOpenAiServer({ key: KEY, model: MODEL, replies });
  return server;
}

/** The error a call throws (fails the test when it resolves). */
async function failure(p: Promise<unknown>): Promise<LlmEndpointError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmEndpointError);
  return err as LlmEndpointError;
}

describe('chatCompletion', () => {
  it('posts model, messages and temperature 0 with the bearer key, and returns the content', async () => {
    const s = await start(['the answer']);
    await expect(chatCompletion({ url: s.url, key: KEY, model: MODEL }, messages)).resolves.toBe('the answer');
    expect(s.requests).toHaveLength(1);
    const [req] = s.requests;
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req!.body).toEqual({ model: MODEL, messages, temperature: 0 });
  });

  it('tolerates a trailing slash on the base URL', async () => {
    const s = await start(['ok']);
    await expect(chatCompletion({ url: `${s.url}/`, key: KEY, model: MODEL }, messages)).resolves.toBe('ok');
    expect(s.requests[0]!.path).toBe('/v1/chat/completions');
  });

  it('reports a refused key with the status and the endpoint message, never the key', async () => {
    const s = await start(['never sent']);
    const wrongKey = 'sk-wrong-5d1e0c77a9b34f21';
    const err = await failure(chatCompletion({ url: s.url, key: wrongKey, model: MODEL }, messages));
    expect(err.status).toBe(401);
    expect(err.message).toBe(`LLM endpoint ${s.url}: HTTP 401: Incorrect API key provided: [redacted].`);
    expect(err.message).not.toContain(wrongKey);
  });

  it('reports what the endpoint said of a bad request (an unknown model)', async () => {
    const s = await start(['never sent']);
    const err = await failure(chatCompletion({ url: s.url, key: KEY, model: 'gpt-nope' }, messages));
    expect(err.status).toBe(400);
    expect(err.message).toBe(`LLM endpoint ${s.url}: HTTP 400: The model \`gpt-nope\` does not exist or you do not have access to it.`);
  });

  it('refuses an answer that is not a chat completion, or holds no text', async () => {
    const s = await start([
      { status: 200, body: { choices: [] } },
      { status: 200, body: { choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, finish_reason: 'stop' }] } },
      { status: 200, body: { choices: [{ message: { role: 'assistant', content: '' }, finish_reason: 'length' }] } },
      { status: 502, body: '<html>Bad gateway</html>' },
    ]);
    const ep = { url: s.url, key: KEY, model: MODEL };
    expect((await failure(chatCompletion(ep, messages))).message).toBe(`LLM endpoint ${s.url}: HTTP 200 with an unexpected answer (not a chat completion): choices: Too small: expected array to have >=1 items`);
    expect((await failure(chatCompletion(ep, messages))).message).toBe(`LLM endpoint ${s.url}: the model refused: I cannot help with that.`);
    expect((await failure(chatCompletion(ep, messages))).message).toBe(`LLM endpoint ${s.url}: the model answered no text (finish_reason length)`);
    const bad = await failure(chatCompletion(ep, messages));
    expect(bad.status).toBe(502);
    expect(bad.message).toBe(`LLM endpoint ${s.url}: HTTP 502: <html>Bad gateway</html>`);
  });

  it('runs against an endpoint that checks the request (the test server refuses what denv must not send)', async () => {
    const s = await start(['never sent']);
    const userOnly = await failure(chatCompletion({ url: s.url, key: KEY, model: MODEL }, [{ role: 'user', content: 'hi' }]));
    expect(userOnly.message).toBe(`LLM endpoint ${s.url}: HTTP 400: denv sends a system message first, then a user message`);
    const warm = await fetch(`${s.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages, temperature: 0.7 }),
    });
    expect(warm.status).toBe(400);
    const wrongPath = await fetch(s.url.replace(/\/v1$/, '/chat/completions'), { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{}' });
    expect(wrongPath.status).toBe(404);
    expect(s.chats).toHaveLength(0);
  });

  it('names an unreachable endpoint, a timeout, a cancellation and a URL that is no URL', async () => {
    const s = await start([]);
    const url = s.url;
    await s.close();
    server = null;
    const refused = await failure(chatCompletion({ url, key: KEY, model: MODEL }, messages));
    expect(refused.message).toBe(`LLM endpoint ${url}: connection refused`);
    expect(refused.status).toBeNull();

    const silent = http.createServer(() => {}); // reads the request, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
    try {
      expect((await failure(chatCompletion({ url: silentUrl, key: KEY, model: MODEL }, messages, { timeoutMs: 200 }))).message).toBe(`LLM endpoint ${silentUrl}: no answer within 200 ms`);
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      const cancelled = await failure(chatCompletion({ url: silentUrl, key: KEY, model: MODEL }, messages, { signal: ac.signal }));
      expect(cancelled.cancelled).toBe(true);
      expect(cancelled.message).toBe(`LLM endpoint ${silentUrl}: cancelled`);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }

    expect((await failure(chatCompletion({ url: 'api.example.com/v1', key: KEY, model: MODEL }, messages))).message).toBe('LLM endpoint (URL not valid): expected an http(s) base URL such as https://api.openai.com/v1');
  });
});
