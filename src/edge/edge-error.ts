/**
 * What an edge provider throws. Every failure of a provider call is an *error* in the STYLE 6
 * sense (denv could not get the proxy or DNS server to do the work), so the class says whether
 * trying again later may help: the pipeline degrades and the edge sweep retries the retryable
 * ones; the others need a person (a wrong key, a name outside the zone, a record denv did not
 * create).
 *
 * Messages name the endpoint and the reason (`caddy admin API at 127.0.0.1:2019: connection
 * refused`) and never a secret: providers pass their secrets to `redact` before any text from a
 * server or a library reaches a message.
 */
export const EDGE_ERROR_REASONS = [
  /** Nothing answered: connection refused, reset, unknown host. */
  'unreachable',
  /** The call took longer than its timeout. */
  'timeout',
  /** The caller's signal aborted the call. */
  'cancelled',
  /** The server refused the credentials (401/403, bad API key, expired token). */
  'unauthorized',
  /** The server answered with an error for this request (4xx other than auth, 5xx). */
  'rejected',
  /** The name is taken by something denv did not create (a record, a proxy host). */
  'conflict',
  /** The request itself is wrong: a bad hostname, address, id, a name outside the zone. */
  'invalid',
  /** The provider cannot do what was asked (npmplus with tls internal). */
  'unsupported',
  /** The server answered something that is not what its API documents. */
  'protocol',
] as const;
export type EdgeErrorReason = (typeof EDGE_ERROR_REASONS)[number];

export class EdgeError extends Error {
  readonly reason: EdgeErrorReason;
  /** Whether the same call may succeed later without anyone changing anything. */
  readonly retryable: boolean;
  /** The HTTP status the server answered, when it answered. */
  readonly status: number | null;
  constructor(reason: EdgeErrorReason, message: string, o: { status?: number | null; retryable?: boolean } = {}) {
    super(message);
    this.name = 'EdgeError';
    this.reason = reason;
    this.status = o.status ?? null;
    this.retryable = o.retryable ?? defaultRetryable(reason, this.status);
  }
}

function defaultRetryable(reason: EdgeErrorReason, status: number | null): boolean {
  if (reason === 'unreachable' || reason === 'timeout') return true;
  if (reason === 'rejected') return status === null || status === 429 || status >= 500;
  return false;
}

export function isEdgeError(err: unknown): err is EdgeError {
  return err instanceof EdgeError;
}

/**
 * `text` with every secret replaced. Secrets shorter than 4 characters are ignored (they would
 * blank out ordinary words and are no secret worth the name); longer ones are replaced wherever
 * they occur, also URL-encoded.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 4) continue;
    for (const form of new Set([s, encodeURIComponent(s)])) out = out.split(form).join('[redacted]');
  }
  return out;
}
