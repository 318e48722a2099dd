/**
 * Every AWS call of the ECS target goes through `awsCall`, so a failure says which call failed:
 * `ecs:CreateService: InvalidParameterException: …`. An `AwsCallError` is an *error* in STYLE's
 * sense (denv could not do the work), not a *failed* deployment: `retryable` says whether trying the
 * same call later may succeed (throttling, 5xx, a network failure), as the SDK judged it after its
 * own retries.
 */

export class AwsCallError extends Error {
  /** `<service>:<Operation>`, e.g. `iam:GetRole`. */
  readonly call: string;
  /** The AWS error's name (`AccessDeniedException`, `SignatureDoesNotMatch`), or the JS error's. */
  readonly awsName: string;
  readonly awsMessage: string;
  /** The HTTP status of AWS's answer; null when there was none (network, abort). */
  readonly httpStatus: number | null;
  readonly retryable: boolean;
  constructor(call: string, err: unknown) {
    const e = (err ?? {}) as { name?: string; message?: string; $metadata?: { httpStatusCode?: number }; $fault?: string; $retryable?: unknown };
    const awsName = e.name ?? 'Error';
    const awsMessage = e.message ?? String(err);
    super(`${call}: ${awsName}: ${awsMessage}`, { cause: err });
    this.name = 'AwsCallError';
    this.call = call;
    this.awsName = awsName;
    this.awsMessage = awsMessage;
    this.httpStatus = e.$metadata?.httpStatusCode ?? null;
    this.retryable = awsName !== 'AbortError' && (e.$fault === 'server' || e.$retryable !== undefined || this.httpStatus === null || this.httpStatus === 429);
  }
}

/** Runs one AWS call, wrapping its failure as an AwsCallError naming `call`. */
export async function awsCall<T>(call: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new AwsCallError(call, err);
  }
}

/** The AWS error's name when `err` is one (unwrapped or wrapped), for the few names callers expect. */
export function awsErrorName(err: unknown): string | null {
  if (err instanceof AwsCallError) return err.awsName;
  if (err && typeof err === 'object' && 'name' in err && typeof err.name === 'string') return err.name;
  return null;
}

/** Runs one call; when it fails with one of `expected` (an answer, not a failure, for this caller),
 *  returns `{ error: name }` instead of throwing. */
export async function awsCallExpecting<T>(call: string, expected: readonly string[], run: () => Promise<T>): Promise<{ readonly ok: T } | { readonly error: string }> {
  try {
    return { ok: await run() };
  } catch (err) {
    const name = awsErrorName(err);
    if (name !== null && expected.includes(name)) return { error: name };
    throw new AwsCallError(call, err);
  }
}
