import os from 'node:os';
import type { HostFacts } from '../contracts/domain.js';
import { VERSION } from '../lib/version.js';

/** What the agent tells the control plane about its host in `hello`. */
export function hostFacts(): HostFacts {
  return {
    hostname: os.hostname(),
    platform: process.platform,
    arch: process.arch,
    runtimes: ['process'],
    dataset_driver: 'copy',
    agent_version: VERSION,
  };
}
