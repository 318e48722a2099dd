/**
 * Whether a host can hold a spec (issue 14, placement that sees resources): the memory its services
 * are limited to, together, must fit in the host's memory, no service may be limited to more CPUs
 * than the host has, and the disk holding its datasets must have MIN_FREE_DISK_BYTES free (Compose
 * has no disk limit to add up; a new env's data and logs need room). Services without limits ask
 * for no memory or CPUs. A host that did not report a resource (an older agent) is taken as
 * fitting it. Pure.
 */
import type { HostFacts } from '../../../contracts/domain.js';
import type { Spec } from '../../../contracts/spec.js';

/** What the spec asks of a host. */
export interface SpecNeeds {
  readonly memory_bytes: number;
  readonly cpus: number;
}

export function specNeeds(spec: Pick<Spec, 'services'>): SpecNeeds {
  let memory = 0;
  let cpus = 0;
  for (const service of Object.values(spec.services)) {
    memory += service.limits?.memory_bytes ?? 0;
    cpus = Math.max(cpus, service.limits?.cpus ?? 0);
  }
  return { memory_bytes: memory, cpus };
}

/** The free disk a host needs to take a new env. */
export const MIN_FREE_DISK_BYTES = 512 * 1024 ** 2;

const mib = (n: number) => `${Math.floor(n / 1024 ** 2)} MiB`;
const gib = (n: number) => `${(n / 1024 ** 3).toFixed(n >= 10 * 1024 ** 3 ? 0 : 1)} GiB`;

/** Why `facts`' host cannot hold `needs`, or null when it can. */
export function whyNotFit(needs: SpecNeeds, facts: HostFacts | null): string | null {
  const reasons: string[] = [];
  if (facts?.memory_bytes !== undefined && needs.memory_bytes > facts.memory_bytes) reasons.push(`needs ${gib(needs.memory_bytes)} of memory, has ${gib(facts.memory_bytes)}`);
  if (facts?.cpus !== undefined && needs.cpus > facts.cpus) reasons.push(`a service is limited to ${needs.cpus} CPUs, it has ${facts.cpus}`);
  if (facts?.disk_free_bytes !== undefined && facts.disk_free_bytes < MIN_FREE_DISK_BYTES) reasons.push(`has ${mib(facts.disk_free_bytes)} of disk free for datasets, a new env needs ${mib(MIN_FREE_DISK_BYTES)}`);
  return reasons.length > 0 ? reasons.join('; ') : null;
}
