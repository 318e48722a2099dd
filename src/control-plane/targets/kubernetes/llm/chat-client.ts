/**
 * One call to an OpenAI-compatible chat-completions endpoint (OpenAI, Azure's v1 surface, vLLM,
 * Ollama, LiteLLM …): the only I/O of the LLM planner. Plain `fetch`, no SDK: the request is
 * three fields and the answer one string.
 *
 * Errors are `LlmEndpointError`s naming the endpoint (its URL without credentials), the HTTP status
 * and the endpoint's own message, with the API key redacted from all of it — some servers echo
 * the key they refused.
 */
import { z } from 'zod';
import { describeNetworkError, errorText } from '../../../../edge/http-json.js';
import { redact } from '../../../../edge/edge-error.js';
import { linkedSignal } from '../../../../lib/linked-abort.js';

/** A project's LLM planner setting. `url` is the API base (`https://api.openai.com/v1`), a trailing slash allowed. */
export interface LlmEndpoint {
  readonly url: string;
  /** Secret: sent as `Authorization: Bearer`, never in a message. */
  readonly key: string;
  readonly model: string;
}

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface ChatOptions {
  /** The caller's cancellation; an abort is reported as such, not as an endpoint failure. */
  readonly signal?: AbortSignal;
  /** Bounds the whole call, answer included. Default 120 s: a large plan takes a model a while. */
  readonly timeoutMs?: number;
}

export const DEFAULT_CHAT_TIMEOUT_MS = 120_000;

/** Why a call failed: `status` is the HTTP status when the endpoint answered, else null. */
export class LlmEndpointError extends Error {
  override readonly name = 'LlmEndpointError';
  constructor(
    message: string,
    readonly status: number | null,
    readonly cancelled = false,
  ) {
    super(message);
  }
}

// What denv reads of a chat.completion; everything else (id, usage, logprobs …) may be there or not.
// `content` is null when the model refused (`refusal`) or answered with tool calls only.
const completion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable(), refusal: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

/** `LLM endpoint https://api.example.com/v1`: how messages name the endpoint (no userinfo, no query). */
export function endpointLabel(url: string): string {
  try {
    const u = new URL(url);
    return `LLM endpoint ${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'LLM endpoint (URL not valid)';
  }
}

/**
 * POSTs `{model, messages, temperature: 0}` to `<url>/chat/completions` and returns the first
 * choice's content. Temperature 0: the same spec and facts should give the same plan. Not retried
 * here — the planner's loop owns retries.
 */
export async function chatCompletion(endpoint: LlmEndpoint, messages: readonly ChatMessage[], o: ChatOptions = {}): Promise<string> {
  const label = endpointLabel(endpoint.url);
  const fail = (text: string, status: number | null = null, cancelled = false) => new LlmEndpointError(redact(`${label}: ${text}`, [endpoint.key]), status, cancelled);
  let target: URL;
  try {
    target = new URL(`${endpoint.url.replace(/\/+$/, '')}/chat/completions`);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    throw fail('expected an http(s) base URL such as https://api.openai.com/v1');
  }
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHAT_TIMEOUT_MS;
  const deadline = linkedSignal(o.signal ? [o.signal] : [], timeoutMs);
  const { signal } = deadline;

  let status: number;
  let text: string;
  try {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${endpoint.key}` },
      body: JSON.stringify({ model: endpoint.model, messages: messages.map((m) => ({ role: m.role, content: m.content })), temperature: 0 }),
      signal,
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    if (o.signal?.aborted) throw fail('cancelled', null, true);
    if (deadline.timedOut) throw fail(`no answer within ${timeoutMs} ms`);
    throw fail(describeNetworkError(err));
  } finally {
    deadline.dispose();
  }

  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : null;
  } catch {
    // Not JSON: an error page from a proxy, say. Reported below as text.
  }
  if (status < 200 || status > 299) throw fail(`HTTP ${status}: ${errorText(body)}`, status);
  if (typeof body === 'string' || body === null) throw fail(`HTTP ${status} with a body that is not JSON: ${errorText(body)}`, status);
  const parsed = completion.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw fail(`HTTP ${status} with an unexpected answer (not a chat completion): ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`, status);
  }
  const choice = parsed.data.choices[0]!;
  if (choice.message.content === null || choice.message.content.trim() === '') {
    throw fail(choice.message.refusal ? `the model refused: ${errorText(choice.message.refusal)}` : `the model answered no text (finish_reason ${choice.finish_reason ?? 'unknown'})`, status);
  }
  return choice.message.content;
}
