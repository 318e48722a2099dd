/**
 * The signed deploy envelope and the pipeline's answer (DESIGN §7 and "Contract details"; the
 * format is fixed: CI tools rely on it; docs/envelope.md describes it for them).
 *
 *   envelope  {"payload": "<base64 of the payload bytes>", "signature": "<base64 DER ECDSA P-256 over those bytes>"}
 *   payload   JSON, closed schema: service, repository, digest, host, expires_at, nonce, and optionally env, health, edge,
 *             run (what runs in the container: entrypoint, command, working_dir, user, healthcheck, volumes), scope (project, env);
 *             or, for a process service, `process` (command, working_dir, user, healthcheck) in place of repository, digest and run
 *
 * A payload with a duplicate key anywhere is refused: two readers of one signed text must never
 * see two different payloads (JSON.parse keeps the last value, other parsers the first).
 *
 * The signature covers the payload *bytes*, never a re-serialisation, so the decoder keeps the
 * bytes it verified next to what it parsed. Everything here is pure (no I/O, no crypto).
 */
import { z } from 'zod';
import { parseDuration } from './duration.js';
import { describeZodError } from './validation.js';

/** Seed 004's terminal states. */
export const TERMINAL_STATES = ['success', 'no_op', 'success_degraded', 'failure_rolled_back', 'failure', 'preflight_ok'] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

/** States a CI job treats as a pass (`success_degraded` only when not strict). */
export const PASSING_STATES: readonly TerminalState[] = ['success', 'no_op', 'success_degraded', 'preflight_ok'];

/** The deploy pipeline's stages, in order (seed 004). */
export const DEPLOY_STAGE_NAMES = ['admit', 'verify', 'idempotency', 'pull', 'env', 'recreate', 'health', 'proxy', 'dns', 'persist'] as const;
/** The preflight's stages, in order (seed 004). */
export const PREFLIGHT_STAGE_NAMES = ['runtime', 'admit', 'ports', 'proxy', 'dns'] as const;
export type StageName = (typeof DEPLOY_STAGE_NAMES)[number] | (typeof PREFLIGHT_STAGE_NAMES)[number];

export const STAGE_STATUSES = ['ok', 'failed', 'skipped'] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

export interface StageReport {
  readonly name: StageName;
  readonly status: StageStatus;
  /** Why it failed or was skipped, or what it decided (`same digest and env, already healthy`). */
  readonly detail?: string;
  readonly took_ms: number;
  /** Never holds a secret: env values appear only as a count and a keyed hash. */
  readonly evidence?: Record<string, unknown>;
}

/** What `POST /deploy` and `POST /preflight` answer, and what env.create reports per image service. */
export interface PipelineAnswer {
  readonly state: TerminalState;
  readonly stages: readonly StageReport[];
  /** `http://127.0.0.1:<port>` of the service once healthy (also after a rollback restored it). */
  readonly endpoint?: string;
}

/** At most this far ahead (DESIGN: 1 h), plus a small allowance for clocks that disagree. */
export const MAX_ENVELOPE_LIFETIME_MS = 3600_000;
export const CLOCK_SKEW_MS = 30_000;
/** An envelope larger than this is refused before it is decoded. */
export const MAX_ENVELOPE_BYTES = 64 * 1024;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The envelope as sent: closed, both fields canonical base64 (no whitespace, correct padding). */
export const envelopeSchema = z.strictObject({
  payload: z.string().min(1).regex(BASE64, 'expected canonical base64'),
  signature: z.string().min(1).regex(BASE64, 'expected canonical base64'),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/** Compose service names (spec.ts uses the same rule). */
const serviceName = z.string().max(63).regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'service names use letters, digits, _ . -');
/**
 * `registry[:port]/path` without tag or digest. Compared byte for byte with the spec's image and
 * the allowlist: denv does not normalise (`nginx` is not `docker.io/library/nginx`).
 */
const repository = z
  .string()
  .max(255)
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*$/, 'expected a repository such as registry.example.com/team/app, without tag or digest');
export const digestSchema = z.string().regex(/^sha256:[a-f0-9]{64}$/, 'expected sha256: and 64 lowercase hex digits');
/** Keys a process can receive and that an env file can carry. */
export const envKeySchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');
/** Values of any bytes but NUL and line breaks (an env file holds one variable per line). */
const envValue = z.string().max(32 * 1024).refine((v) => !/[\0\r\n]/.test(v), 'env values cannot contain NUL or line breaks');
const hostname = z.string().max(253).regex(/^(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/, 'expected a DNS name');

const duration = z.union([z.string(), z.number()]).refine((v) => parseDuration(v) !== null, 'expected a duration such as 10s');
const absolutePath = z.string().min(1).max(4096).startsWith('/', 'expected an absolute path in the container').refine((v) => !/[\0:]/.test(v), 'paths cannot contain NUL or ":"');
const argv = z.array(z.string().max(32 * 1024).refine((v) => !v.includes('\0'), 'NUL is not allowed')).min(1).max(256);

/**
 * What runs in the container (issue 10): on a host that requires signatures these come from the
 * envelope or from the image, never from the unsigned Compose file. Closed, like the payload.
 */
export const envelopeRunSchema = z.strictObject({
  entrypoint: argv.optional(),
  command: argv.optional(),
  working_dir: absolutePath.optional(),
  /** `user`, `uid`, `user:group` or `uid:gid`, as Compose writes it. */
  user: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})?$/, 'expected user, uid, user:group or uid:gid').optional(),
  /** Compose's healthcheck: `test` is `["CMD", …]`, `["CMD-SHELL", "…"]` or a string (run by the container's shell). */
  healthcheck: z
    .strictObject({
      test: z.union([z.string().min(1).max(32 * 1024), z.array(z.string().max(32 * 1024)).min(2).max(256)]).refine((t) => typeof t === 'string' || t[0] === 'CMD' || t[0] === 'CMD-SHELL', 'expected ["CMD", …], ["CMD-SHELL", "…"] or a string'),
      interval: duration.optional(),
      timeout: duration.optional(),
      retries: z.number().int().min(0).max(1000).optional(),
      start_period: duration.optional(),
    })
    .optional(),
  /** Datasets (Compose named volumes of the deploy) mounted at `target`. */
  volumes: z.array(z.strictObject({ source: serviceName, target: absolutePath, read_only: z.boolean().optional() })).max(64).optional(),
});
export type EnvelopeRun = z.infer<typeof envelopeRunSchema>;

/** Fields every payload has, image or process. */
const payloadBase = {
  service: serviceName,
  /** The agent's configured `name`. */
  host: z.string().min(1).max(253),
  expires_at: z.iso.datetime({ offset: true }),
  /** Unique per envelope; an agent refuses a nonce it has accepted before. Printable ASCII, no spaces. */
  nonce: z.string().regex(/^[\x21-\x7e]{1,200}$/, 'expected 1-200 printable characters without spaces'),
  env: z.record(envKeySchema, envValue).optional(),
  health: z
    .strictObject({
      path: z.string().startsWith('/').max(2048),
      timeout: z.union([z.string(), z.number()]).refine((v) => parseDuration(v) !== null, 'expected a duration such as 10s').optional(),
    })
    .optional(),
  edge: z.strictObject({ hostnames: z.array(hostname).min(1).max(50) }).optional(),
  /** Binds the envelope to a project and/or env (names); a deploy elsewhere is refused at admit. */
  scope: z.strictObject({ project: z.string().min(1).max(200).optional(), env: z.string().min(1).max(200).optional() }).optional(),
};

/** An image service's payload: the image by digest, and optionally what runs in its container. */
export const envelopePayloadSchema = z.strictObject({
  ...payloadBase,
  repository,
  digest: digestSchema,
  run: envelopeRunSchema.optional(),
});
export type ImagePayload = z.infer<typeof envelopePayloadSchema>;

/**
 * What a process service runs (issue 10: hosts with `process_runtime: signed`): the argv, and
 * optionally its working dir (a host path), user and healthcheck. The Compose service must say
 * the same (or leave a setting out); its `environment` must be bound by the payload's `env`.
 */
export const envelopeProcessSchema = z.strictObject({
  command: argv,
  working_dir: z.string().min(1).max(4096).startsWith('/', 'expected an absolute path on the host').refine((v) => !v.includes('\0'), 'NUL is not allowed').optional(),
  user: envelopeRunSchema.shape.user,
  healthcheck: envelopeRunSchema.shape.healthcheck,
});
export type EnvelopeProcess = z.infer<typeof envelopeProcessSchema>;

/** A process service's payload: `process` in place of `repository`, `digest` and `run`. */
export const processPayloadSchema = z.strictObject({ ...payloadBase, process: envelopeProcessSchema });
export type ProcessPayload = z.infer<typeof processPayloadSchema>;

export type EnvelopePayload = ImagePayload | ProcessPayload;

export const isProcessPayload = (p: EnvelopePayload): p is ProcessPayload => 'process' in p;

export interface DecodedEnvelope {
  /** Exactly the bytes the signature must cover. */
  readonly payloadBytes: Buffer;
  readonly signature: Buffer;
  readonly payload: EnvelopePayload;
}

export type DecodeResult = { readonly ok: true; readonly value: DecodedEnvelope } | { readonly ok: false; readonly message: string };

/**
 * Decode an envelope as received (any JSON value): closed envelope schema, base64 payload and
 * signature, UTF-8 JSON payload, closed payload schema. Problems are named by path
 * (`payload.digest: expected sha256: …`). Pure: it checks no signature and no clock.
 */
export function decodeEnvelope(raw: unknown): DecodeResult {
  const outer = envelopeSchema.safeParse(raw);
  if (!outer.success) return { ok: false, message: `envelope: ${describeZodError(outer.error)}` };
  const payloadBytes = Buffer.from(outer.data.payload, 'base64');
  const signature = Buffer.from(outer.data.signature, 'base64');
  if (payloadBytes.length > MAX_ENVELOPE_BYTES) return { ok: false, message: `payload: larger than ${MAX_ENVELOPE_BYTES} bytes` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes);
  } catch {
    return { ok: false, message: 'payload: not valid UTF-8' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'payload: not valid JSON' };
  }
  const duplicate = duplicateJsonKey(text);
  if (duplicate !== null) return { ok: false, message: `payload: duplicate key ${JSON.stringify(duplicate)}: a signed payload must have one reading` };
  // A payload with `process` signs a process service; any other, an image (the original format).
  const isProcess = json !== null && typeof json === 'object' && !Array.isArray(json) && Object.hasOwn(json, 'process');
  const inner = (isProcess ? processPayloadSchema : envelopePayloadSchema).safeParse(json);
  if (!inner.success) return { ok: false, message: describeZodError(inner.error, 'payload') };
  return { ok: true, value: { payloadBytes, signature, payload: inner.data } };
}

/**
 * The path (`env.API_KEY`, `run`) of the first key that appears twice in one object of `text`,
 * which must be valid JSON; null when every object's keys are unique.
 */
export function duplicateJsonKey(text: string): string | null {
  type Frame = { readonly keys: Set<string> | null; expectKey: boolean; path: string; key: string | null; index: number };
  const stack: Frame[] = [];
  const child = (f: Frame | undefined): string => (f === undefined ? '' : f.keys ? (f.path ? `${f.path}.${f.key}` : (f.key ?? '')) : f.path ? `${f.path}.${f.index}` : String(f.index));
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return top.path ? `${top.path}.${key}` : key;
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = j;
    } else if (c === '{' || c === '[') {
      const path = child(stack[stack.length - 1]);
      stack.push({ keys: c === '{' ? new Set() : null, expectKey: c === '{', path, key: null, index: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}

/**
 * The service an envelope names and whether it signs a process (`process`) or an image, without
 * validating anything else; null when it cannot be read. Used only to pick the per-service lock
 * and to route an envelope to its service; admit decides.
 */
export function peekEnvelope(raw: unknown): { readonly service: string; readonly kind: 'image' | 'process' } | null {
  if (!raw || typeof raw !== 'object' || typeof (raw as { payload?: unknown }).payload !== 'string') return null;
  try {
    const json = JSON.parse(Buffer.from((raw as { payload: string }).payload, 'base64').toString('utf8')) as { service?: unknown };
    if (typeof json.service !== 'string' || !serviceName.safeParse(json.service).success) return null;
    return { service: json.service, kind: Object.hasOwn(json, 'process') ? 'process' : 'image' };
  } catch {
    return null;
  }
}

export const peekEnvelopeService = (raw: unknown): string | null => peekEnvelope(raw)?.service ?? null;

/** Expiry rule: refused once `expires_at` has passed, and when it lies more than 1 h (plus skew) ahead. */
export function checkExpiry(expiresAt: string, nowMs: number): string | null {
  const at = Date.parse(expiresAt);
  if (!Number.isFinite(at)) return `expires_at: not a time`;
  if (at <= nowMs) return `expired at ${expiresAt}`;
  if (at > nowMs + MAX_ENVELOPE_LIFETIME_MS + CLOCK_SKEW_MS) return `expires_at ${expiresAt} is more than 1 h ahead`;
  return null;
}

/** `repo[:tag][@sha256:…]` → its repository, tag and digest (pure; no normalisation). */
export function parseImageRef(image: string): { repository: string; tag: string | null; digest: string | null } {
  let rest = image;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | null = null;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  return { repository: rest, tag, digest };
}

/**
 * Allowlist match (DESIGN: entries are prefixes). For repositories a prefix matches at a path
 * boundary: `registry:5000/team` allows `registry:5000/team` and `registry:5000/team/app`, not
 * `registry:5000/teamster`; an entry ending in `/` allows everything below it. For services an
 * entry is a plain string prefix (`web` allows `web` and `web-canary`).
 */
export function allowedRepository(repo: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => p !== '' && (repo === p || repo.startsWith(p.endsWith('/') ? p : `${p}/`)));
}

export function allowedService(service: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => p !== '' && service.startsWith(p));
}
