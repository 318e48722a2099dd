/**
 * An API call that failed, named after what it was doing (`apply Deployment web`) and carrying the
 * API server's own words: its Status message, HTTP status and reason. `status` null means no answer
 * at all (connection refused, DNS, TLS): the agent could not do the work — an *error*, worth a
 * retry; an answer such as 422 Invalid or 409 Conflict means the cluster refused it — *failed*.
 */
import { ApiException } from '@kubernetes/client-node';
import { messageOf } from '../../contracts/errors.js';

export class KubeApiError extends Error {
  /** The HTTP status the API server answered, null when it did not answer. */
  readonly status: number | null;
  /** The Status object's reason (`Invalid`, `Conflict`, `Forbidden` …), when it sent one. */
  readonly reason: string | null;

  constructor(what: string, cause: unknown) {
    const status = httpStatusOf(cause);
    const body = statusBody(cause);
    const said = body?.message ?? (status === null ? messageOf(cause) : status === 401 ? 'Unauthorized' : firstLine(messageOf(cause)));
    super(`${what}: ${said}${status === null ? '' : ` (HTTP ${status}${body?.reason ? ` ${body.reason}` : ''})`}`, { cause });
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = body?.reason ?? null;
  }
}

/** The HTTP status of a client-node error, null when it is not an API answer. */
export function httpStatusOf(e: unknown): number | null {
  return e instanceof ApiException && typeof e.code === 'number' ? e.code : null;
}

/** client-node 1.x keeps the error body as text (a JSON Status object from a real API server). */
function statusBody(e: unknown): { message?: string; reason?: string } | null {
  if (!(e instanceof ApiException)) return null;
  const body: unknown = e.body;
  try {
    const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
    if (parsed && typeof parsed === 'object') {
      const s = parsed as { message?: unknown; reason?: unknown };
      return { message: typeof s.message === 'string' ? s.message : undefined, reason: typeof s.reason === 'string' ? s.reason : undefined };
    }
  } catch {
    // not JSON: a proxy's page, say; the message below still says what happened
  }
  return typeof body === 'string' && body.trim() ? { message: firstLine(body.trim()).slice(0, 500) } : null;
}

const firstLine = (s: string) => s.split('\n')[0]!;
