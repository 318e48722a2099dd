/**
 * What teardown deletes: exactly the objects a plan names (seed 002), in the plan's namespace (the
 * agent's). Reverse plan order, so what mounts a claim or routes to a Service goes first; an
 * object named twice is listed once.
 */
import type { KubeObject, KubeRef } from '../../../../contracts/kubernetes.js';

export function refsOf(manifests: readonly KubeObject[]): KubeRef[] {
  const seen = new Set<string>();
  const refs: KubeRef[] = [];
  for (const m of [...manifests].reverse()) {
    const key = `${m.apiVersion}/${m.kind}/${m.metadata.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push({ apiVersion: m.apiVersion, kind: m.kind, name: m.metadata.name });
  }
  return refs;
}
