/**
 * A container's requests and limits from the spec's `limits` (Compose `deploy.resources.limits`,
 * `mem_limit`, `cpus`).
 *
 * Defaults when the spec is silent: requests 100m CPU / 128Mi memory (what the scheduler reserves),
 * a 512Mi memory limit (a leak ends in an OOM kill of this pod, not of its neighbours), and no CPU
 * limit (a CPU limit throttles even on an idle node; the request already shares CPU fairly).
 * A request never exceeds its limit (the API server refuses that). `pids` has no per-container
 * setting in Kubernetes and is not carried over.
 */
import type { ResourceLimits } from '../../../../contracts/spec-types.js';

export const DEFAULT_CPU_REQUEST_MILLI = 100;
export const DEFAULT_MEMORY_REQUEST_BYTES = 128 * 1024 ** 2;
export const DEFAULT_MEMORY_LIMIT_BYTES = 512 * 1024 ** 2;

/** Bytes as a Kubernetes quantity: `512Mi`, `1Gi`, `1536Ki`, else plain bytes. */
export function memoryQuantity(bytes: number): string {
  for (const [unit, size] of [['Gi', 1024 ** 3], ['Mi', 1024 ** 2], ['Ki', 1024]] as const) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** CPUs as millicores: 0.5 → `500m`. */
export function cpuQuantity(milli: number): string {
  return `${milli}m`;
}

export interface ContainerResources {
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly limits: { readonly cpu?: string; readonly memory: string };
}

export function containerResources(limits: ResourceLimits | undefined): ContainerResources {
  const memoryLimit = limits?.memory_bytes ?? DEFAULT_MEMORY_LIMIT_BYTES;
  const cpuLimitMilli = limits?.cpus != null ? Math.max(1, Math.round(limits.cpus * 1000)) : null;
  return {
    requests: {
      cpu: cpuQuantity(Math.min(DEFAULT_CPU_REQUEST_MILLI, cpuLimitMilli ?? DEFAULT_CPU_REQUEST_MILLI)),
      memory: memoryQuantity(Math.min(DEFAULT_MEMORY_REQUEST_BYTES, memoryLimit)),
    },
    limits: { ...(cpuLimitMilli !== null ? { cpu: cpuQuantity(cpuLimitMilli) } : {}), memory: memoryQuantity(memoryLimit) },
  };
}
