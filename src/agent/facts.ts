import { statfsSync } from 'node:fs';
import os from 'node:os';
import type { HostFacts } from '../contracts/domain.js';
import { VERSION } from '../lib/version.js';

/** What the agent tells the control plane about its host in `hello`; `datasetDriver` is the one
 *  `openDatasetDriver` picked for the agent's dataset root; `publicIp` what its envs' DNS names
 *  resolve to (edge/public-address.ts). */
export function hostFacts(datasetDriver: HostFacts['dataset_driver'] = 'copy', docker = false, publicIp: readonly string[] = [], address?: string, datasetsRoot?: string): HostFacts {
  return {
    hostname: os.hostname(),
    platform: process.platform,
    arch: process.arch,
    // `docker` when the engine answered as the agent started.
    runtimes: docker ? ['process', 'docker'] : ['process'],
    dataset_driver: datasetDriver,
    agent_version: VERSION,
    public_ip: [...publicIp],
    ...(address ? { address } : {}),
    cpus: os.availableParallelism(),
    memory_bytes: os.totalmem(),
    ...(datasetsRoot ? diskOf(datasetsRoot) : {}),
  };
}

/** The size of the disk holding `dir` and what is free on it for this user; nothing when it cannot be read. */
export function diskOf(dir: string): { readonly disk_bytes?: number; readonly disk_free_bytes?: number } {
  try {
    const s = statfsSync(dir);
    return { disk_bytes: s.blocks * s.bsize, disk_free_bytes: s.bavail * s.bsize };
  } catch {
    return {};
  }
}
