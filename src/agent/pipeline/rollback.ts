/**
 * Rollback after a failed recreate, health or persist (seed 004): restore the slot's previous
 * image and env — its last-good record, exactly the Compose file that ran it and its env file,
 * still on tmpfs — and wait for it to be healthy again. A slot that had no previous deploy is
 * removed (container, Compose file, env files, port), which restores "nothing ran here".
 *
 * Answers whether the slot is back in its previous state, with evidence for the failing stage.
 */
import { writeFile } from 'node:fs/promises';
import { messageOf } from '../../contracts/errors.js';
import { waitContainerHealthy } from '../runtimes/docker/container-health.js';
import { slotFileKey, slotPortOwner } from '../runtimes/docker/slot.js';
import { endpointOf } from './slot-plan.js';
import type { StageContext } from './stage.js';
import type { RollbackResult } from './stage-runner.js';


export async function rollback({ host, req, state }: StageContext): Promise<RollbackResult> {
  const docker = host.docker!;
  const project = host.slots.projectOf(req.slot);
  const file = host.slots.composeFileOf(req.slot);
  const previous = state.record?.current ?? null;
  const started = Date.now();
  try {
    if (previous) {
      await writeFile(file, previous.compose, { mode: 0o600 });
      await docker.up(project, file);
      const verdict = await waitContainerHealthy(previous.health, { docker, project, service: req.slot.service, port: previous.port });
      const keep = [previous.env_file, state.record?.previous?.env_file].filter((f): f is string => typeof f === 'string');
      await host.envFiles.prune(slotFileKey(req.slot), keep);
      if (verdict.ok) state.endpoint = endpointOf(previous.port);
      const evidence = { restored: previous.digest, healthy: verdict.ok, took_ms: Date.now() - started, ...(verdict.ok ? {} : { message: verdict.message }) };
      return { restored: verdict.ok, evidence };
    }
    await docker.down(project, file);
    await host.slots.remove(req.slot);
    await host.envFiles.removeSlot(slotFileKey(req.slot));
    await host.ports.release(slotPortOwner(req.slot));
    return { restored: true, evidence: { restored: null, removed: true, took_ms: Date.now() - started } };
  } catch (err) {
    return { restored: false, evidence: { rollback_error: messageOf(err), took_ms: Date.now() - started } };
  }
}
