/**
 * What the control plane checks about a signed deploy before accepting it (DESIGN §7). It holds
 * no keys and verifies nothing cryptographic — the agent does that with keys configured on the
 * host, so a compromised control plane still cannot deploy an unsigned image. Here only the
 * request's shape is judged, to refuse at once what no agent would accept:
 *
 *   - a project with `require_signed` needs an envelope;
 *   - the envelope must name a service of the Compose file that has an image.
 *
 * The envelope is relayed untouched in env.create; it never appears in events or evidence.
 */
import type { Project } from '../../contracts/domain.js';
import { peekEnvelopeService, type Envelope } from '../../contracts/envelope.js';
import { DenvError } from '../../contracts/errors.js';
import type { Spec } from '../../contracts/spec.js';

export function checkSignedDeploy(project: Pick<Project, 'name' | 'require_signed'>, spec: Spec, envelope: Envelope | undefined): void {
  if (!envelope) {
    if (project.require_signed) throw new DenvError('BAD_REQUEST', `envelope: project "${project.name}" requires signed deploys (send envelope {payload, signature}; see docs/envelope.md)`);
    return;
  }
  const service = peekEnvelopeService(envelope);
  if (service === null) throw new DenvError('BAD_REQUEST', 'envelope.payload: cannot read the service it names (expected base64 of a JSON payload)');
  const target = spec.services[service];
  if (!target) throw new DenvError('BAD_REQUEST', `envelope: it signs service "${service}", which the Compose file does not have`);
  if (target.image === null) throw new DenvError('BAD_REQUEST', `envelope: service "${service}" has no image; envelopes sign image deploys`);
}
