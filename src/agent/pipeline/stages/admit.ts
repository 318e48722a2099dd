/**
 * admit (seed 004, stage 1): decode the envelope and decide whether this host will consider it
 * at all — before any signature work and before any effect. Checks, in order: the closed schema
 * (envelope and payload), the host binding, the expiry, the replay record (read-only here;
 * `verify` records the nonce atomically), the service, the allowlists from the host's own config,
 * the envelope's scope (project, env), and for control-plane deploys that the Compose service
 * says the same as the envelope (repository, pinned digest, environment, and — on a host that
 * requires signatures — what runs: run-binding.ts). A failure here is a hard gate: nothing changes.
 *
 * Without an envelope a deploy is admitted only on a host with `require_signature: false`, and
 * only from the control plane (a standalone request *is* its envelope).
 */
import { allowedRepository, decodeEnvelope, isProcessPayload, parseImageRef, type ImagePayload } from '../../../contracts/envelope.js';
import { commonMismatch } from '../../envelope/envelope-checks.js';
import { parseDuration } from '../../../contracts/duration.js';
import type { HealthSpec, ServiceSpec } from '../../../contracts/spec.js';
import { fillEnvironment } from '../../envs/siblings.js';
import type { FileMount } from '../../envs/packed-files.js';
import { isUnderAny } from '../../files.js';
import { composeRunOf, effectiveRun, runMismatch, signedRunOf, type RunSettings } from '../run-binding.js';
import { failed, ok, skipped, type Stage, type StageContext, type StageOutcome, type Target } from '../stage.js';

const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
const ALIVE: HealthSpec = { kind: 'alive', for_ms: 1000 };

/** The envelope's `health` if it has one (it is signed), else the Docker healthcheck that runs, else the spec's HTTP check, else "stays up for 1 s". */
function healthOf(payload: ImagePayload | null, spec: ServiceSpec | null, run: RunSettings): HealthSpec {
  if (payload?.health) {
    const timeout = payload.health.timeout !== undefined ? parseDuration(payload.health.timeout) : null;
    return { kind: 'http', path: payload.health.path, port: null, timeout_ms: timeout ?? DEFAULT_HTTP_TIMEOUT_MS };
  }
  if (run.healthcheck) return run.healthcheck;
  return spec && spec.health.kind !== 'command' ? spec.health : ALIVE;
}

const NO_RUN: RunSettings = { entrypoint: null, command: null, working_dir: null, user: null, healthcheck: null, volumes: null };

/**
 * Files mounted into a container (binds, secrets, configs): their content is not covered by any
 * signature, and a file can change what runs, so a signed deploy (or a host that requires
 * signatures) refuses them; a host path not packed with the version needs `allow.paths`.
 */
function fileMountProblem(mounts: readonly FileMount[], signed: boolean, allowPaths: readonly string[]): string | null {
  if (mounts.length === 0) return null;
  if (signed) return `bind mounts, secrets and configs (${mounts.map((m) => m.target).join(', ')}) are refused on a signed deploy: their content is not covered by the signature; bake them into the image or use a dataset`;
  for (const m of mounts) {
    if (m.host_path && !isUnderAny(m.source, allowPaths)) {
      return `bind mount of host path ${m.source} is not allowed on this host (agent config allow.paths)`;
    }
  }
  return null;
}

/** Control-plane deploys: the Compose service must agree with what was signed. */
function specMismatch(spec: ServiceSpec, p: ImagePayload): string | null {
  if (!spec.image) return `service ${p.service} has no image in the Compose file`;
  const ref = parseImageRef(spec.image);
  if (ref.repository !== p.repository) return `the Compose image's repository "${ref.repository}" is not the signed repository "${p.repository}"`;
  if (ref.digest !== null && ref.digest !== p.digest) return `the Compose image pins ${ref.digest}, the envelope signs ${p.digest}`;
  const signedEnv = p.env ?? {};
  for (const [key, value] of Object.entries(spec.environment)) {
    // Keys only in the message: values may be secrets.
    if (signedEnv[key] !== value) return `environment ${key} in the Compose file is not bound by the envelope with the same value`;
  }
  return null;
}

/** The admit checks shared with preflight's admit. */
export async function admitEnvelope(ctx: StageContext): Promise<StageOutcome> {
  const { host, req, state } = ctx;
  const cfg = host.config;
  const files = fileMountProblem(req.fileMounts ?? [], cfg.requireSignature || (req.envelope !== null && req.envelope !== undefined), cfg.allow.paths);
  if (files) return failed(files);
  if (req.envelope === null || req.envelope === undefined) {
    if (req.built && cfg.requireSignature) {
      return failed(`no envelope: this host requires a signed envelope for image services (require_signature), and ${req.built.tag} was built here from source, signed by nobody: give the host a build_key (its public key among trusted_keys), build it in CI and deploy the pushed digest with an envelope, or build on a host with require_signature: false`);
    }
    if (req.spec === null || cfg.requireSignature) return failed('no envelope: this host requires a signed envelope for image services (require_signature)');
    if (req.built) {
      const b = req.built;
      state.target = { repository: parseImageRef(b.tag).repository, digest: b.image_id, ref: b.tag, env: fillEnvironment(req.spec.environment, req.siblings ?? {}), health: req.spec.health, hostnames: [], signed: false, run: composeRunOf(req.spec), built: b };
      return skipped('unsigned: built on this host from source; this host does not require signatures (require_signature: false)', { image: b.tag, image_id: b.image_id, commit: b.commit });
    }
    const ref = parseImageRef(req.spec.image ?? '');
    state.target = { repository: ref.repository, digest: ref.digest, ref: req.spec.image ?? '', env: fillEnvironment(req.spec.environment, req.siblings ?? {}), health: req.spec.health, hostnames: [], signed: false, run: composeRunOf(req.spec) };
    return skipped('unsigned: this host does not require signatures (require_signature: false)', { image: req.spec.image });
  }
  const decoded = decodeEnvelope(req.envelope);
  if (!decoded.ok) return failed(decoded.message);
  const p = decoded.value.payload;
  const common = await commonMismatch(p, { hostName: cfg.name, service: req.slot.service, allowServices: cfg.allow.services, nonces: host.nonces, names: req.names });
  if (common) return failed(common);
  if (isProcessPayload(p)) return failed(`envelope signs process service "${p.service}" (it has \`process\`); an image service needs an envelope with repository and digest`);
  if (!allowedRepository(p.repository, cfg.allow.repositories)) return failed(`repository "${p.repository}" is not allowed on this host (allow.repositories)`);
  const signedRun = signedRunOf(p.run);
  if (req.spec) {
    const mismatch = specMismatch(req.spec, p);
    if (mismatch) return failed(mismatch);
    const runDiffers = cfg.requireSignature ? runMismatch(composeRunOf(req.spec), signedRun) : null;
    if (runDiffers) return failed(`run.${runDiffers}`);
  }
  const run = effectiveRun(req.spec ? composeRunOf(req.spec) : NO_RUN, signedRun);
  const unknownVolume = (signedRun.volumes ?? []).findIndex((v) => req.datasets[v.source] === undefined);
  if (unknownVolume >= 0) return failed(`run.volumes.${unknownVolume}.source: no dataset "${signedRun.volumes![unknownVolume]!.source}" in this deploy (declare it under the Compose file's top-level volumes)`);
  state.decoded = decoded.value;
  // An image this host built and signed with its build key: run by its id, not pulled.
  const built = req.built && req.built.image_id === p.digest && parseImageRef(req.built.tag).repository === p.repository ? req.built : null;
  const target: Target = {
    repository: p.repository,
    digest: p.digest,
    ref: built ? built.tag : `${p.repository}@${p.digest}`,
    // `${DENV_<S>_HOST}` and the like, signed as written, are filled with this host's addresses.
    env: fillEnvironment(p.env ?? {}, req.siblings ?? {}),
    health: healthOf(p, req.spec, run),
    hostnames: p.edge?.hostnames ?? [],
    signed: true,
    run,
    ...(built ? { built } : {}),
  };
  state.target = target;
  return ok(undefined, {
    service: p.service,
    repository: p.repository,
    digest: p.digest,
    host: p.host,
    expires_at: p.expires_at,
    nonce: p.nonce,
    env_keys: Object.keys(target.env).length,
    hostnames: target.hostnames,
    ...(p.run ? { run: Object.keys(p.run) } : {}),
    ...(p.scope ? { scope: p.scope } : {}),
  });
}

export const admit: Stage = { name: 'admit', onFailure: 'fail', run: admitEnvelope };
