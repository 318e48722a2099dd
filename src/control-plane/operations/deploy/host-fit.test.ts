import { describe, expect, it } from 'vitest';
import type { HostFacts } from '../../../contracts/domain.js';
import { MIN_FREE_DISK_BYTES, specNeeds, whyNotFit } from './host-fit.js';

const GiB = 1024 ** 3;
const facts = (memory_bytes?: number, cpus?: number) => ({ hostname: 'h', platform: 'linux', arch: 'x64', runtimes: ['process'], dataset_driver: 'copy', agent_version: '0', memory_bytes, cpus }) as HostFacts;
const spec = (...limits: ({ memory_bytes: number | null; cpus: number | null } | undefined)[]) =>
  ({ services: Object.fromEntries(limits.map((l, i) => [`s${i}`, l ? { limits: { ...l, pids: null } } : {}])) }) as never;

describe('host fit', () => {
  it('adds up the memory limits of the services and takes the largest CPU limit; no limits ask for nothing', () => {
    expect(specNeeds(spec({ memory_bytes: 2 * GiB, cpus: 1 }, { memory_bytes: GiB, cpus: 3 }, undefined))).toEqual({ memory_bytes: 3 * GiB, cpus: 3 });
    expect(specNeeds(spec(undefined))).toEqual({ memory_bytes: 0, cpus: 0 });
  });

  it('names what does not fit, fits at the exact size, and takes a host that reported nothing as fitting', () => {
    expect(whyNotFit({ memory_bytes: 64 * GiB, cpus: 0 }, facts(8 * GiB, 2))).toBe('needs 64 GiB of memory, has 8.0 GiB');
    expect(whyNotFit({ memory_bytes: 64 * GiB, cpus: 4 }, facts(8 * GiB, 2))).toBe('needs 64 GiB of memory, has 8.0 GiB; a service is limited to 4 CPUs, it has 2');
    expect(whyNotFit({ memory_bytes: 8 * GiB, cpus: 2 }, facts(8 * GiB, 2))).toBeNull();
    expect(whyNotFit({ memory_bytes: 64 * GiB, cpus: 64 }, facts())).toBeNull();
    expect(whyNotFit({ memory_bytes: 64 * GiB, cpus: 64 }, null)).toBeNull();
  });

  it('refuses a host with less than 512 MiB of datasets disk free, and takes one with exactly that', () => {
    const withDisk = (free: number) => ({ ...facts(8 * GiB, 2), disk_bytes: 64 * GiB, disk_free_bytes: free }) as HostFacts;
    expect(MIN_FREE_DISK_BYTES).toBe(512 * 1024 ** 2);
    expect(whyNotFit({ memory_bytes: 0, cpus: 0 }, withDisk(MIN_FREE_DISK_BYTES - 1))).toBe('has 511 MiB of disk free for datasets, a new env needs 512 MiB');
    expect(whyNotFit({ memory_bytes: 0, cpus: 0 }, withDisk(MIN_FREE_DISK_BYTES))).toBeNull();
    expect(whyNotFit({ memory_bytes: 64 * GiB, cpus: 0 }, withDisk(0))).toBe('needs 64 GiB of memory, has 8.0 GiB; has 0 MiB of disk free for datasets, a new env needs 512 MiB');
  });
});
