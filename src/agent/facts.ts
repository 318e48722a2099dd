import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { HostFacts } from '../contracts/domain.js';

const FALLBACK_VERSION = '0.1.0';

/** The package version, read from package.json two levels up (src/agent or dist/agent alike). */
export function agentVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : FALLBACK_VERSION;
  } catch {
    return FALLBACK_VERSION;
  }
}

/** What the agent tells the control plane about its host in `hello`. */
export function hostFacts(): HostFacts {
  return {
    hostname: os.hostname(),
    platform: process.platform,
    arch: process.arch,
    runtimes: ['process'],
    dataset_driver: 'copy',
    agent_version: agentVersion(),
  };
}
