/**
 * Signed process services (agent config `process_runtime: signed`; issue 10, docs/envelope.md
 * "Process services"). On such a host a process service starts only when an envelope signed by
 * one of the host's `trusted_keys` says what it runs: the payload's `process` (command, and
 * optionally working_dir, user, healthcheck) and `env`. The Compose service must say exactly the
 * same — there is no image to supply defaults, so what the Compose file sets *is* what runs — and
 * may carry nothing the signature does not cover (secrets, configs, bind mounts, an entrypoint).
 *
 * The checks are the image pipeline's admit and verify (envelope-checks.ts, the same nonce
 * record), then the spec's digest is recorded for the env (admitted-processes.ts): the same spec
 * starts again in that env (rollback, start, fork) without a new envelope.
 *
 * Pure checks first (processMismatch); admitProcess does the effects. Messages name settings,
 * never values (values may be secrets).
 */
import { createHash } from 'node:crypto';
import { decodeEnvelope, isProcessPayload, peekEnvelopeService, type ProcessPayload } from '../../contracts/envelope.js';
import { DenvError } from '../../contracts/errors.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { verifyPayload } from '../../lib/envelope-crypto.js';
import type { AgentContext } from '../context.js';
import { commonMismatch, type DeployNames } from '../envelope/envelope-checks.js';
import { signedRunOf } from '../pipeline/run-binding.js';

export interface ProcessAdmission {
  readonly env: string;
  readonly service: string;
  readonly spec: ServiceSpec;
  /** The envelopes relayed with env.create (any service; unvalidated). Absent for rollback, start, fork. */
  readonly envelopes: readonly unknown[];
  readonly names?: DeployNames;
}

/** What identifies a spec the host admitted (the whole ServiceSpec: command, environment, user, …). */
export function specDigest(service: string, spec: ServiceSpec): string {
  return `sha256:${createHash('sha256').update(canonicalJson({ service, spec })).digest('hex')}`;
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** The first way the Compose service departs from what `p` signs, or null when it runs exactly that. */
export function processMismatch(spec: ServiceSpec, p: ProcessPayload): string | null {
  const unsignedFiles = [...(spec.secrets ?? []), ...(spec.configs ?? []), ...(spec.binds ?? [])];
  if (unsignedFiles.length > 0) return 'secrets, configs and bind mounts are refused for a signed process service: their content is not covered by the signature';
  if (spec.entrypoint !== null) return 'entrypoint: a process service runs `command` only; the envelope signs process.command';
  if (!same(spec.command, p.process.command)) return 'process.command: the Compose command is not the signed one';
  // Paths and user names are not secrets: they are named, so a signer can see what to sign.
  if (!same(spec.working_dir, p.process.working_dir)) {
    return `process.working_dir: the Compose service runs in ${spec.working_dir ?? "its env's own dir"}, the envelope signs ${p.process.working_dir ?? 'none'} (denv deploy gives a process service without one the Compose file's directory)`;
  }
  if (!same(spec.user, p.process.user)) return `process.user: the Compose service runs as ${spec.user ?? "its env's own user"}, the envelope signs ${p.process.user ?? 'none'}`;
  const signedCheck = signedRunOf({ healthcheck: p.process.healthcheck }).healthcheck;
  const composeCheck = spec.health.kind === 'command' ? spec.health : null;
  if (!same(composeCheck, signedCheck)) return 'process.healthcheck: the Compose healthcheck is not the signed one (an HTTP x-denv.health runs nothing and needs no signature)';
  const signedEnv = p.env ?? {};
  for (const key of new Set([...Object.keys(spec.environment), ...Object.keys(signedEnv)])) {
    if (spec.environment[key] !== signedEnv[key]) return `environment ${key}: the Compose file and the envelope's env differ`;
  }
  return null;
}

/** How a process service was let in (the pipeline's admit and verify stages report it). */
export type Admission =
  | { readonly admitted: 'open' }
  | { readonly admitted: 'before'; readonly spec_digest: string }
  | { readonly admitted: 'signed'; readonly spec_digest: string; readonly key: string; readonly nonce: string }
  | { readonly refused: string };

/**
 * Null when `a.service` may start on this host (the runtime is not `signed`, the spec was admitted
 * in this env before, or a valid envelope admits it now: the nonce is then consumed and the spec
 * recorded); otherwise the reason it may not.
 */
export async function admitProcess(ctx: AgentContext, a: ProcessAdmission): Promise<string | null> {
  const res = await processAdmission(ctx, a);
  return 'refused' in res ? res.refused : null;
}

/** admitProcess, saying how the service was let in. */
export async function processAdmission(ctx: AgentContext, a: ProcessAdmission): Promise<Admission> {
  const refused = (why: string): Admission => ({ refused: why });
  if (ctx.identities.policy.processRuntime !== 'signed') return { admitted: 'open' };
  const host = ctx.pipeline;
  if (!host) return refused('this host runs process services only when signed (process_runtime: signed) and has no envelope checks configured');
  const digest = specDigest(a.service, a.spec);
  if (await host.admitted.has(a.env, digest)) return { admitted: 'before', spec_digest: digest };
  const raw = a.envelopes.find((e) => peekEnvelopeService(e) === a.service);
  if (raw === undefined) return refused(`no envelope: this host runs process services only when signed (process_runtime: signed); sign one with \`process\` for service ${a.service} (docs/envelope.md)`);
  const decoded = decodeEnvelope(raw);
  if (!decoded.ok) return refused(decoded.message);
  const p = decoded.value.payload;
  const cfg = host.config;
  const common = await commonMismatch(p, { hostName: cfg.name, service: a.service, allowServices: cfg.allow.services, nonces: host.nonces, names: a.names });
  if (common) return refused(common);
  if (!isProcessPayload(p)) return refused(`envelope signs an image (repository ${p.repository}); a process service needs an envelope with \`process\``);
  const mismatch = processMismatch(a.spec, p);
  if (mismatch) return refused(mismatch);
  if (cfg.trustedKeys.length === 0) return refused('no trusted keys are configured on this host (trusted_keys)');
  const key = verifyPayload(decoded.value.payloadBytes, decoded.value.signature, cfg.trustedKeys);
  if (!key) return refused(`signature does not verify under any of the ${cfg.trustedKeys.length} trusted key${cfg.trustedKeys.length > 1 ? 's' : ''} (ECDSA P-256, SHA-256, DER)`);
  if (!(await host.nonces.consume(p.nonce, p.expires_at))) return refused(`replayed: nonce "${p.nonce}" was already used on this host`);
  await host.admitted.add(a.env, digest);
  ctx.log(`env ${a.env}: process service ${a.service} admitted (signed by ${key.fingerprint}, nonce ${p.nonce})`);
  return { admitted: 'signed', spec_digest: digest, key: key.fingerprint, nonce: p.nonce };
}

/**
 * env.exec (the warm phase, `denv env exec`) and verify.run run an argv that no envelope signs:
 * on a `signed` host they are refused.
 */
export function refuseUnsignedCommand(ctx: AgentContext, what: string): void {
  if (ctx.identities.policy.processRuntime === 'signed') {
    throw new DenvError('AGENT_ERROR', `${what}: refused: this host runs only signed commands (process_runtime: signed), and ${what} runs one no envelope signs`);
  }
}
