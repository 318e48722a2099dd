/**
 * idempotency (seed 004, stage 3): the same digest, the same env (by keyed hash) and the same
 * container config as the slot's last-good record, its container running and healthy right now,
 * and no edge left degraded → stop with `no_op`. Anything else says what changed and lets the
 * deploy go on. Reads only.
 */
import { healthyNow } from '../../runtimes/docker/container-health.js';
import { configHashOf, endpointOf, slotConfigOf } from '../slot-plan.js';
import { failed, ok, type Stage } from '../stage.js';

export const idempotency: Stage = {
  name: 'idempotency',
  onFailure: 'fail',
  async run({ host, req, state }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host');
    const target = state.target!;
    state.envHash = host.envHasher.hash(target.env);
    state.configHash = configHashOf(slotConfigOf(req, target, host.config.network, host.slots.networkOf(req.slot.scope)));
    const current = state.record?.current ?? null;
    const evidence = { env_hash: state.envHash.slice(0, 24), previous_digest: current?.digest ?? null };
    if (!current) return ok('first deploy of this service on this host', evidence);
    const changed = [
      ...(target.digest !== current.digest ? ['digest'] : []),
      ...(state.envHash !== current.env_hash ? ['env'] : []),
      ...(state.configHash !== current.config_hash ? ['config'] : []),
    ];
    if (changed.length > 0) return ok(`changed: ${changed.join(', ')}`, evidence);
    if (current.edge.proxy.status === 'failed' || current.edge.dns.status === 'failed') return ok('same digest and env, but the edge was degraded: converging', evidence);
    const container = await docker.container(host.slots.projectOf(req.slot), req.slot.service);
    if (!container) return ok('same digest and env, but no container: recreating', evidence);
    const image = await docker.image(current.image);
    if (!image || image.id !== container.image) return ok('same digest and env, but the container runs another image: recreating', evidence);
    const health = await healthyNow(current.health, { docker, project: host.slots.projectOf(req.slot), service: req.slot.service, port: current.port }, container);
    if (!health.ok) return ok(`same digest and env, but not healthy (${health.detail}): recreating`, evidence);
    state.endpoint = endpointOf(current.port);
    state.port = current.port;
    return { status: 'ok', detail: 'same digest and env, already healthy', evidence: { ...evidence, container: container.id.slice(0, 12) }, stop: 'no_op' };
  },
};
