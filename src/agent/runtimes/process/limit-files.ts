/**
 * The cgroup files that enforce a service's `ResourceLimits` (pure; unit-tested on exact output):
 * cgroup v1 writes each controller's own file, v2 the unified ones.
 */
import type { ResourceLimits } from '../../../contracts/spec.js';

export const CPU_PERIOD_US = 100_000;

export type LimitController = 'memory' | 'cpu' | 'pids';

/** file name → content, per controller, for `limits` (controllers without a limit are absent). */
export function limitFiles(limits: ResourceLimits, version: 1 | 2): Partial<Record<LimitController, Record<string, string>>> {
  const out: Partial<Record<LimitController, Record<string, string>>> = {};
  if (limits.memory_bytes !== null) {
    // No swap beyond the limit either (v2: swap.max 0), so the limit is what the kernel enforces.
    out.memory = version === 1
      ? { 'memory.limit_in_bytes': String(limits.memory_bytes), 'memory.memsw.limit_in_bytes': String(limits.memory_bytes) }
      : { 'memory.max': String(limits.memory_bytes), 'memory.swap.max': '0' };
  }
  if (limits.cpus !== null) {
    const quota = String(Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US)));
    out.cpu = version === 1 ? { 'cpu.cfs_period_us': String(CPU_PERIOD_US), 'cpu.cfs_quota_us': quota } : { 'cpu.max': `${quota} ${CPU_PERIOD_US}` };
  }
  if (limits.pids !== null) out.pids = { 'pids.max': String(limits.pids) };
  return out;
}

export function hasLimits(limits: ResourceLimits | undefined): limits is ResourceLimits {
  return limits !== undefined && (limits.memory_bytes !== null || limits.cpus !== null || limits.pids !== null);
}
