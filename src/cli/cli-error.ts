/**
 * An error the CLI reports as `error (CODE): message`. Unlike `DenvError` (the server's catalogue),
 * the code is any string: it may come from the API (whatever the server answered) or be one of the
 * CLI's own conditions (UNREACHABLE, USAGE, NOT_FOUND for a missing compose file …).
 */
export class CliError extends Error {
  readonly code: string;
  /** The HTTP status when the error came from an API answer. */
  readonly status: number | null;
  constructor(code: string, message: string, status: number | null = null) {
    super(message);
    this.name = 'CliError';
    this.code = code;
    this.status = status;
  }
}
