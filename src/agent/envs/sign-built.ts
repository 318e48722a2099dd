/**
 * An image a source deploy built on a host that requires signatures (image-build.ts): the host
 * signs it with its own `build_key` (agent config), and its pipeline then admits and verifies it
 * as any signed deploy — so it runs only if the operator put that key's public half among the
 * host's `trusted_keys` and allowed `denv-build/` in `allow.repositories` (and the service in
 * `allow.services`). Trusting the build key trusts every commit the linked repository gives the
 * host to build, pull requests' previews included (docs/source-deploys.md).
 *
 * The payload binds what the Compose service says, exactly: the built image by its id, the
 * environment, and what runs (run-binding.ts envelopeRunOf), for this host and a few minutes.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import { parseImageRef, type Envelope, type ImagePayload } from '../../contracts/envelope.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { makeEnvelope } from '../../lib/envelope-crypto.js';
import type { BuiltImage } from '../pipeline/stage.js';
import { composeRunOf, envelopeRunOf } from '../pipeline/run-binding.js';

/** How long a build's envelope may wait for its pipeline (it runs right after the build). */
const LIFETIME_MS = 10 * 60_000;

/** The payload signing `built` for service `service` on host `host` (pure but for the nonce and the clock). */
export function builtImagePayload(o: { readonly host: string; readonly service: string; readonly spec: ServiceSpec; readonly built: BuiltImage; readonly now?: number }): ImagePayload {
  const run = envelopeRunOf(composeRunOf(o.spec));
  return {
    service: o.service,
    host: o.host,
    expires_at: new Date((o.now ?? Date.now()) + LIFETIME_MS).toISOString(),
    nonce: `build-${randomUUID()}`,
    repository: parseImageRef(o.built.tag).repository,
    digest: o.built.image_id,
    ...(Object.keys(o.spec.environment).length > 0 ? { env: { ...o.spec.environment } } : {}),
    ...(run ? { run } : {}),
  };
}

export function signBuiltImage(key: KeyObject, o: Parameters<typeof builtImagePayload>[0]): Envelope {
  return makeEnvelope(Buffer.from(JSON.stringify(builtImagePayload(o))), key);
}
