/**
 * The admit checks every envelope passes, image or process (seed 004 stage 1, before any
 * signature work and before any effect): the host binding, the expiry, the replay record
 * (read-only; the nonce is recorded only after the signature holds), the service it names, the
 * host's service allowlist, and the envelope's scope. Each returns the reason it refuses, or null.
 */
import { allowedService, checkExpiry, type EnvelopePayload } from '../../contracts/envelope.js';
import type { NonceStore } from './nonce-store.js';

/** The names of this deploy (standalone deploys have none). */
export interface DeployNames {
  readonly project?: string;
  readonly env?: string;
}

/** The envelope's `scope` against the names of this deploy. */
export function scopeMismatch(p: EnvelopePayload, names: DeployNames | undefined): string | null {
  if (p.scope?.project !== undefined && p.scope.project !== names?.project) return `scope.project: the envelope is for project "${p.scope.project}", this deploy ${names?.project ? `is for "${names.project}"` : 'names no project'}`;
  if (p.scope?.env !== undefined && p.scope.env !== names?.env) return `scope.env: the envelope is for env "${p.scope.env}", this deploy ${names?.env ? `is for "${names.env}"` : 'names no env'}`;
  return null;
}

export async function commonMismatch(
  p: EnvelopePayload,
  o: { readonly hostName: string; readonly service: string; readonly allowServices: readonly string[]; readonly nonces: NonceStore; readonly names: DeployNames | undefined },
): Promise<string | null> {
  if (p.host !== o.hostName) return `envelope is for host "${p.host}", this host is "${o.hostName}"`;
  const expiry = checkExpiry(p.expires_at, Date.now());
  if (expiry) return expiry;
  if (await o.nonces.seen(p.nonce)) return `replayed: nonce "${p.nonce}" was already used on this host`;
  if (p.service !== o.service) return `envelope is for service "${p.service}", not "${o.service}"`;
  if (!allowedService(p.service, o.allowServices)) return `service "${p.service}" is not allowed on this host (allow.services)`;
  return scopeMismatch(p, o.names);
}
