/**
 * Building a signed envelope from CLI options, shared by `denv sign` and `denv preflight`.
 * The payload is either a file signed byte for byte (`--payload`), or built from flags with the
 * exact fields DESIGN fixes (docs/envelope.md). `payloadFromOptions` is pure.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { envelopePayloadSchema, envelopeSchema, parseImageRef, processPayloadSchema, type Envelope, type EnvelopePayload } from '../contracts/envelope.js';
import { parseDuration } from '../contracts/duration.js';
import { parseOrThrow } from '../contracts/validation.js';
import { loadSigningKey, makeEnvelope } from '../lib/envelope-crypto.js';
import { CliError } from './cli-error.js';

export interface EnvelopeOptions {
  readonly key?: string;
  readonly payload?: string;
  readonly service?: string;
  readonly image?: string;
  readonly repository?: string;
  readonly digest?: string;
  readonly host?: string;
  readonly env?: readonly string[];
  readonly envFile?: string;
  readonly healthPath?: string;
  readonly healthTimeout?: string;
  readonly hostname?: readonly string[];
  readonly expiresIn: string;
  readonly nonce?: string;
  /** The payload's `run` object: JSON text, or `@file`. */
  readonly runJson?: string;
  /** A process service's `process` object (command, working_dir, user, healthcheck): JSON text, or `@file`. */
  readonly processJson?: string;
  readonly scopeProject?: string;
  readonly scopeEnv?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the options to a command (sign and preflight take the same ones). */
export function addEnvelopeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--key <file>', 'PEM private key, ECDSA P-256 (openssl ecparam -name prime256v1 -genkey -noout)').env('DENV_SIGNING_KEY_FILE'))
    .option('--payload <file>', 'sign this payload file exactly as it is (its bytes are what is signed)')
    .option('--service <name>', 'the service to deploy')
    .option('--image <repo@sha256:…>', 'repository and digest in one')
    .option('--repository <repo>', 'image repository, without tag or digest')
    .option('--digest <sha256:…>', 'image manifest digest')
    .option('--host <name>', "the target agent's configured name")
    .option('--env <KEY=VALUE>', 'an env value for the service (repeatable; prefer --env-file for secrets: argv is visible in ps)', collect)
    .option('--env-file <file>', 'env values, one KEY=VALUE per line (# comments and blank lines ignored)')
    .option('--health-path <path>', 'HTTP path that must answer 2xx before the deploy counts as healthy')
    .option('--health-timeout <duration>', 'how long health may take (e.g. 30s)')
    .option('--hostname <name>', 'an edge hostname for proxy and DNS (repeatable)', collect)
    .option('--expires-in <duration>', 'validity, at most 1h', '10m')
    .option('--nonce <nonce>', 'unique string (default: a random UUID)')
    .option('--run-json <json|@file>', 'what runs in the container: {entrypoint, command, working_dir, user, healthcheck, volumes} (docs/envelope.md)')
    .option('--process-json <json|@file>', 'sign a process service instead of an image: {command, working_dir, user, healthcheck} (hosts with process_runtime: signed)')
    .option('--scope-project <name>', 'deploy only into this project')
    .option('--scope-env <name>', 'deploy only into this env');
}

/** `KEY=VALUE` lines → record; `#` comments and blank lines skipped; no quoting, no interpolation. */
export function parseEnvLines(text: string, what: string): Record<string, string> {
  const env: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new CliError('USAGE', `${what}:${i + 1}: expected KEY=VALUE`);
    env[line.slice(0, eq)] = line.slice(eq + 1);
  });
  return env;
}

/**
 * The payload object the flags describe (pure; validated against the closed schema). `run`: the
 * parsed `--run-json`; `process`: the parsed `--process-json` (a process service's payload).
 */
export function payloadFromOptions(o: EnvelopeOptions, env: Record<string, string>, nowMs: number, nonce: string, run?: unknown, process?: unknown): EnvelopePayload {
  let repository = o.repository;
  let digest = o.digest;
  if (process !== undefined) {
    const clash = [o.image && '--image', o.repository && '--repository', o.digest && '--digest', run !== undefined && '--run-json'].filter(Boolean);
    if (clash.length > 0) throw new CliError('USAGE', `--process-json signs a process service: leave out ${clash.join(', ')}`);
  } else if (o.image) {
    const ref = parseImageRef(o.image);
    if (!ref.digest) throw new CliError('USAGE', '--image: expected repo@sha256:… (a digest, not a tag)');
    repository ??= ref.repository;
    digest ??= ref.digest;
  }
  const image = process === undefined;
  const missing = [!o.service && '--service', image && !repository && '--repository (or --image)', image && !digest && '--digest (or --image)', !o.host && '--host'].filter(Boolean);
  if (missing.length > 0) throw new CliError('USAGE', `missing ${missing.join(', ')} (or pass --payload <file>)`);
  const lifetime = parseDuration(o.expiresIn);
  if (lifetime === null || lifetime <= 0) throw new CliError('USAGE', '--expires-in: expected a duration such as 10m');
  const payload = {
    service: o.service,
    ...(image ? { repository, digest } : { process }),
    host: o.host,
    expires_at: new Date(nowMs + lifetime).toISOString(),
    nonce,
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(o.healthPath ? { health: { path: o.healthPath, ...(o.healthTimeout ? { timeout: o.healthTimeout } : {}) } } : {}),
    ...(o.hostname && o.hostname.length > 0 ? { edge: { hostnames: [...o.hostname] } } : {}),
    ...(run !== undefined ? { run } : {}),
    ...(o.scopeProject || o.scopeEnv ? { scope: { ...(o.scopeProject ? { project: o.scopeProject } : {}), ...(o.scopeEnv ? { env: o.scopeEnv } : {}) } } : {}),
  };
  return image ? parseOrThrow(envelopePayloadSchema, payload, 'BAD_REQUEST', 'payload') : parseOrThrow(processPayloadSchema, payload, 'BAD_REQUEST', 'payload');
}

/** `--run-json` / `--process-json`: JSON text, or `@file`. */
async function readJsonOption(value: string | undefined, flag: string): Promise<unknown> {
  if (value === undefined) return undefined;
  const text = value.startsWith('@') ? await readFile(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError('USAGE', `${flag}: ${(err as Error).message}`);
  }
}

/**
 * The envelopes of `denv deploy --envelope F` (repeatable; one per image service): each file holds
 * one envelope as `denv sign` prints it. Checked for shape only (the host verifies them).
 */
export async function readEnvelopeFiles(files: readonly string[]): Promise<Envelope[]> {
  const out: Envelope[] = [];
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      throw new CliError('USAGE', `--envelope ${file}: ${(err as Error).message}`);
    }
    const parsed = envelopeSchema.safeParse(json);
    if (!parsed.success) throw new CliError('USAGE', `--envelope ${file}: expected {"payload", "signature"} as denv sign prints it`);
    out.push(parsed.data);
  }
  return out;
}

/** Read the key and the payload (file or flags) and sign. */
export async function envelopeFromOptions(o: EnvelopeOptions): Promise<Envelope> {
  if (!o.key) throw new CliError('USAGE', 'missing --key <file> (or DENV_SIGNING_KEY_FILE)');
  const key = loadSigningKey(await readFile(o.key, 'utf8'), o.key);
  if (o.payload) return makeEnvelope(await readFile(o.payload), key);
  const env = { ...(o.envFile ? parseEnvLines(await readFile(o.envFile, 'utf8'), o.envFile) : {}), ...parseEnvLines((o.env ?? []).join('\n'), '--env') };
  const run = await readJsonOption(o.runJson, '--run-json');
  const process = await readJsonOption(o.processJson, '--process-json');
  const payload = payloadFromOptions(o, env, Date.now(), o.nonce ?? randomUUID(), run, process);
  return makeEnvelope(Buffer.from(JSON.stringify(payload), 'utf8'), key);
}
