/**
 * What the control plane checks about a signed deploy before accepting it (DESIGN §7). It holds
 * no keys and verifies nothing cryptographic — the agent does that with keys configured on the
 * host, so a compromised control plane still cannot deploy an unsigned image. Here only the
 * request's shape is judged, to refuse at once what no agent would accept:
 *
 *   - one envelope per signed service: `envelopes: [...]`, or `envelope` for one service (both
 *     may be sent; they are taken together);
 *   - each must name a service of the Compose file, no service twice, and be of its kind: an
 *     image envelope (repository, digest) for an image service, a `process` envelope for a
 *     process service (hosts with `process_runtime: signed` run only those);
 *   - a project with `require_signed` needs an envelope for every image service.
 *
 * Errors name the path (`envelopes.1: …`). The envelopes are relayed untouched in env.create;
 * they never appear in events or evidence.
 */
import type { Project } from '../../contracts/domain.js';
import { peekEnvelope, type Envelope } from '../../contracts/envelope.js';
import { DenvError } from '../../contracts/errors.js';
import type { Spec } from '../../contracts/spec.js';

export interface SignedDeployBody {
  readonly envelope?: Envelope | undefined;
  readonly envelopes?: readonly Envelope[] | undefined;
}

/** Checks the request's envelopes and returns them as one list (`envelopes` first, then `envelope`). */
export function checkSignedDeploy(project: Pick<Project, 'name' | 'require_signed'>, spec: Spec, body: SignedDeployBody): Envelope[] {
  const items: { path: string; envelope: Envelope }[] = [
    ...(body.envelopes ?? []).map((envelope, i) => ({ path: `envelopes.${i}`, envelope })),
    ...(body.envelope ? [{ path: 'envelope', envelope: body.envelope }] : []),
  ];
  if (items.length === 0) {
    if (project.require_signed) throw new DenvError('BAD_REQUEST', `envelope: project "${project.name}" requires signed deploys (send envelope {payload, signature}, or envelopes: [...] with one per image service; see docs/envelope.md)`);
    return [];
  }
  const signed = new Map<string, string>();
  for (const { path, envelope } of items) {
    const peeked = peekEnvelope(envelope);
    if (peeked === null) throw new DenvError('BAD_REQUEST', `${path}.payload: cannot read the service it names (expected base64 of a JSON payload)`);
    const { service, kind } = peeked;
    const target = spec.services[service];
    if (!target) throw new DenvError('BAD_REQUEST', `${path}: it signs service "${service}", which the Compose file does not have`);
    if (target.image === null && kind === 'image') throw new DenvError('BAD_REQUEST', `${path}: service "${service}" has no image; an envelope for a process service signs \`process\` (docs/envelope.md)`);
    if (target.image !== null && kind === 'process') throw new DenvError('BAD_REQUEST', `${path}: service "${service}" has an image; its envelope signs repository and digest, not \`process\``);
    const earlier = signed.get(service);
    if (earlier !== undefined) throw new DenvError('BAD_REQUEST', `${path}: a second envelope for service "${service}" (${earlier} signs it already)`);
    signed.set(service, path);
  }
  if (project.require_signed) {
    const missing = Object.entries(spec.services)
      .filter(([name, s]) => s.image !== null && !signed.has(name))
      .map(([name]) => name);
    if (missing.length > 0) throw new DenvError('BAD_REQUEST', `envelopes: project "${project.name}" requires signed deploys, and no envelope signs image service${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')}`);
  }
  return items.map((i) => i.envelope);
}
