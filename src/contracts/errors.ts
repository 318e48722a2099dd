/**
 * The one catalogue of errors. Each has a stable code and an HTTP status; the API answers
 * `{"error": {code, message}}` and the CLI prints `error (CODE): message`.
 */
export const ERRORS = {
  BAD_REQUEST: 400,
  INVALID_COMPOSE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  /** The agent's host was removed by an operator: it must stop, not re-enroll. */
  HOST_REMOVED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INVALID_TRANSITION: 409,
  STORE_LOCKED: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  AGENT_ERROR: 502,
  AGENT_UNREACHABLE: 503,
  /** A linked repository could not be fetched (unreachable, refused the credentials, not a repository). */
  REPO_UNAVAILABLE: 502,
  /** An AWS call the request needed failed (the operator's credentials refused, AWS unreachable). */
  AWS_UNAVAILABLE: 502,
  /** The PostgreSQL server cannot be reached (restarting, down): retry; nothing was written. */
  DATABASE_UNAVAILABLE: 503,
  TIMEOUT: 504,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class DenvError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'DenvError';
    this.code = code;
    this.status = ERRORS[code];
  }
}

export function isDenvError(err: unknown): err is DenvError {
  return err instanceof DenvError;
}

/** The message of anything thrown, for evidence and logs. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
