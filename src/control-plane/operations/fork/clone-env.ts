import type { PhaseContext } from '../phase.js';
import type { VersionRecord } from '../versions.js';
import { sourcePayload } from '../source-payload.js';

/**
 * Ask `host` to make env `env` a fork of `source`: its datasets forked from the version's
 * snapshot (kept in the dataset dir of the version's own env), its services started on fresh
 * ports. Used by the fork kind and by verify's grader clone. Idempotent per phase and `key`.
 */
export async function cloneOnHost(ctx: PhaseContext, host: string, source: VersionRecord, env: string, key = 'main') {
  return ctx.call(host, 'env.fork', {
    from_env: source.env,
    snapshot: source.snapshot!,
    env,
    version: source.id,
    services: { ...source.spec.services },
    volumes: [...source.spec.volumes],
    ...(source.spec.files ? { files: source.spec.files } : {}),
    ...(await sourcePayload(ctx, env, source.spec)),
  }, key);
}
