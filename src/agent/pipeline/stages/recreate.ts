/**
 * recreate (seed 004, stage 6): give the slot its host port (kept from its last deploy, or newly
 * allocated from `ports.json`, the host's one allocator), make sure the env's network exists
 * (bridge networking; created idempotently, shared by the env's slots), write its Compose file,
 * and run `compose up --detach` as argv. Compose replaces the container in place. From the moment Compose
 * runs, a failure means the previous image and env must be restored (`onFailure: rollback`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildComposeFile } from '../../runtimes/docker/compose-file.js';
import { slotPortOwner } from '../../runtimes/docker/slot.js';
import { composeInputOf, slotConfigOf } from '../slot-plan.js';
import { containerImageOf, failed, ok, type Stage } from '../stage.js';

/** The port this slot holds in ports.json, or a new allocation. Never re-allocates a held port (our own container may be listening on it). */
export async function slotPort(host: { ports: { read(): Promise<Record<string, string>>; allocate(owner: string): Promise<number> } }, owner: string): Promise<number> {
  const held = Object.entries(await host.ports.read()).find(([, o]) => o === owner);
  return held ? Number(held[0]) : host.ports.allocate(owner);
}

export const recreate: Stage = {
  name: 'recreate',
  onFailure: 'rollback',
  async run({ host, req, state }) {
    const docker = host.docker;
    if (!docker) return failed('no docker runtime on this host');
    const target = state.target!;
    const digest = target.digest!;
    const port = await slotPort(host, slotPortOwner(req.slot));
    state.port = port;
    const config = slotConfigOf(req, target, host.config.network, host.slots.networkOf(req.slot.scope));
    const network = config.envNetwork ? await docker.ensureNetwork(config.envNetwork, host.slots.networkLabels(req.slot.scope)) : null;
    const compose = buildComposeFile(composeInputOf(req, { ...target, digest }, config, port, state.envFile, host.slots.agentTag));
    const file = host.slots.composeFileOf(req.slot);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(file, compose, { mode: 0o600 });
    const project = host.slots.projectOf(req.slot);
    state.changed = true;
    await docker.up(project, file);
    state.deployed = {
      image: containerImageOf({ ...target, digest }),
      repository: target.repository,
      digest,
      env_hash: state.envHash!,
      env_file: state.envFile,
      env_keys: Object.keys(target.env).length,
      config_hash: state.configHash!,
      port,
      compose,
      health: config.health,
      edge: state.edge,
      version: req.version,
      signed: target.signed,
      deployed_at: new Date().toISOString(),
    };
    const cli = await docker.compose();
    return ok(undefined, {
      project,
      port,
      network: config.network,
      ...(config.envNetwork ? { env_network: config.envNetwork, env_network_was: network, container_port: config.containerPort ?? port } : {}),
      image: state.deployed.image,
      compose: `${cli.argv.join(' ')} ${cli.version}`,
    });
  },
};
