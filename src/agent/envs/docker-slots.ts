/**
 * Env-level operations on an env's image services (its docker slots, scope = env id), used by
 * the commands the way `stop-services.ts` is for processes: make a version's slots run their
 * verified deploy again (activate), retire slots a version no longer has, remove every slot of
 * an env (destroy), stop them (scale to zero, records kept), and pause/resume them (snapshots).
 *
 * Each slot operation holds the slot's lock, like a deploy. Nothing here deploys anything new:
 * only deploys the pipeline verified and recorded (the slot's current or previous) are started.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parseImageRef } from '../../contracts/envelope.js';
import { messageOf } from '../../contracts/errors.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import type { PipelineHost } from '../pipeline/pipeline-host.js';
import { endpointOf } from '../pipeline/slot-plan.js';
import { waitContainerHealthy } from '../runtimes/docker/container-health.js';
import type { DeployedService, SlotRecord } from '../runtimes/docker/slot-store.js';
import { slotFileKey, slotPortOwner, type Slot } from '../runtimes/docker/slot.js';

/** With `down --remove-orphans`, removes every container of the project whatever it runs. */
const EMPTY_COMPOSE = 'version: "2.4"\nservices: {}\n';

export type ActivateResult = { readonly ok: true; readonly port: number; readonly endpoint: string; readonly restored: string } | { readonly ok: false; readonly port: number; readonly message: string };

/** Which recorded deploy a version means: the one recorded for it, else the one its spec pins, else the current one. */
export function chooseDeploy(record: SlotRecord, version: string, spec: ServiceSpec): DeployedService | null {
  const candidates = [record.current, record.previous].filter((d): d is DeployedService => d !== null);
  const byVersion = candidates.find((d) => d.version === version);
  if (byVersion) return byVersion;
  const pinned = spec.image ? parseImageRef(spec.image).digest : null;
  if (pinned) return candidates.find((d) => d.digest === pinned) ?? null;
  return record.current;
}

async function writeCompose(host: PipelineHost, slot: Slot, compose: string): Promise<string> {
  const file = host.slots.composeFileOf(slot);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, compose, { mode: 0o600 });
  return file;
}

/**
 * Make `slot` run the deploy `version` means, and be healthy: adopt it when it already runs,
 * else start it from its recorded Compose file (swapping current and previous when that is the
 * previous deploy). Fails, changing nothing, when this host never verified such a deploy.
 */
export function activateSlot(host: PipelineHost, slot: Slot, version: string, spec: ServiceSpec): Promise<ActivateResult> {
  return host.locks.run(slotFileKey(slot), async () => {
    const docker = host.docker!;
    const record = await host.slots.read(slot);
    const want = record ? chooseDeploy(record, version, spec) : null;
    if (!record || !want) return { ok: false, port: record?.current?.port ?? 0, message: `${slot.service}: no verified deploy of this service matches version ${version} on this host; deploy it with a signed envelope` };
    const project = host.slots.projectOf(slot);
    const container = await docker.container(project, slot.service);
    const image = container?.running ? await docker.image(want.image) : null;
    if (!(container?.running && image?.id === container.image)) {
      // A recorded Compose file of bridge networking names the env's network as external.
      if (host.config.network === 'bridge' && want.compose.includes(`name: ${host.slots.networkOf(slot.scope)}\n`)) {
        await docker.ensureNetwork(host.slots.networkOf(slot.scope), host.slots.networkLabels(slot.scope));
      }
      await docker.up(project, await writeCompose(host, slot, want.compose));
      const verdict = await waitContainerHealthy(want.health, { docker, project, service: slot.service, port: want.port });
      if (!verdict.ok) return { ok: false, port: want.port, message: verdict.message };
    }
    if (want !== record.current) await host.slots.write(slot, want, record.current);
    return { ok: true, port: want.port, endpoint: endpointOf(want.port), restored: want.digest };
  });
}

/** Stop and forget one slot: container, Compose file, record, env files, port. Idempotent. */
export function removeSlot(host: PipelineHost, slot: Slot): Promise<boolean> {
  return host.locks.run(slotFileKey(slot), async () => {
    const record = await host.slots.read(slot);
    let removed = false;
    if (host.docker) {
      const project = host.slots.projectOf(slot);
      removed = (await host.docker.container(project, slot.service)) !== null;
      if (removed) await host.docker.down(project, await writeCompose(host, slot, record?.current?.compose ?? record?.previous?.compose ?? EMPTY_COMPOSE));
    }
    await host.slots.remove(slot);
    await host.envFiles.removeSlot(slotFileKey(slot));
    await host.ports.release(slotPortOwner(slot));
    return removed;
  });
}

/**
 * Remove every slot of `scope` whose service is not in `keep` (all of them when keep is null, and
 * then the scope's network too: env destroy); returns how many containers were removed.
 */
export async function retireSlots(host: PipelineHost, scope: string, keep: readonly string[] | null): Promise<number> {
  const records = await host.slots.list(scope);
  let removed = 0;
  for (const rec of records) {
    if (keep !== null && keep.includes(rec.service)) continue;
    if (await removeSlot(host, { scope, service: rec.service })) removed++;
  }
  if (keep === null && host.docker) {
    // A network something else still uses (a container this agent did not start) stays; destroy goes on.
    await host.docker.removeNetwork(host.slots.networkOf(scope)).catch((err: unknown) => host.log(`env ${scope}: network not removed: ${messageOf(err)}`));
  }
  return removed;
}

/** Stop (compose down) every slot of `scope`, keeping records, env files and ports, so `activateSlot` brings it back. */
export async function stopSlots(host: PipelineHost, scope: string): Promise<number> {
  let stopped = 0;
  for (const rec of await host.slots.list(scope)) {
    const slot = { scope, service: rec.service };
    await host.locks.run(slotFileKey(slot), async () => {
      if (!host.docker || !rec.current) return;
      const project = host.slots.projectOf(slot);
      if (!(await host.docker.container(project, slot.service))) return;
      await host.docker.down(project, await writeCompose(host, slot, rec.current.compose));
      stopped++;
    });
  }
  return stopped;
}

/** Running containers of `scope`'s slots (ids). */
async function runningContainers(host: PipelineHost, scope: string): Promise<string[]> {
  if (!host.docker) return [];
  const ids: string[] = [];
  for (const rec of await host.slots.list(scope)) {
    const c = await host.docker.container(host.slots.projectOf({ scope, service: rec.service }), rec.service);
    if (c?.running && c.status !== 'paused') ids.push(c.id);
  }
  return ids;
}

/** `docker pause` every running container of `scope` (cgroup freezer); returns the paused ids for `resumeSlots`. */
export async function pauseSlots(host: PipelineHost, scope: string): Promise<string[]> {
  const ids = await runningContainers(host, scope);
  await host.docker?.pause(ids);
  return ids;
}

export async function resumeSlots(host: PipelineHost, ids: readonly string[]): Promise<void> {
  await host.docker?.unpause(ids);
}
