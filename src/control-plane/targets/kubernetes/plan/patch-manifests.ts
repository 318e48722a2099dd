/**
 * Changes the dispatcher makes to stored manifests before an apply (seed 002): the image a
 * deploy or upgrade runs, and replicas 0 for a stop. Pure: the input is never modified; the
 * result is a deep copy, every other field as stored (a start re-applies the stored replica counts).
 */
import { LABEL_SERVICE, type KubeObject } from '../../../../contracts/kubernetes.js';
import { labelName, labelValue } from './kube-names.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

function podContainers(deployment: KubeObject): Rec[] {
  const spec = isRec(deployment.spec) ? deployment.spec : null;
  const template = spec && isRec(spec.template) ? spec.template : null;
  const pod = template && isRec(template.spec) ? template.spec : null;
  return pod && Array.isArray(pod.containers) ? (pod.containers as unknown[]).filter(isRec) : [];
}

/**
 * Each Deployment of a service named in `images` (its `denv.dev/service` label, raw or sanitised)
 * runs that image: in the container named after the service, else its first container (a
 * hand-edited plan may add sidecars, which keep theirs).
 */
export function withImages(manifests: readonly KubeObject[], images: Readonly<Record<string, string>>): KubeObject[] {
  const byLabel = new Map<string, { service: string; image: string }>();
  for (const [service, image] of Object.entries(images).sort(([a], [b]) => (a < b ? -1 : 1))) {
    byLabel.set(service, { service, image });
    if (!byLabel.has(labelValue(service))) byLabel.set(labelValue(service), { service, image });
  }
  return manifests.map((m) => {
    const copy = structuredClone(m) as KubeObject;
    const label = m.metadata.labels?.[LABEL_SERVICE];
    const wanted = m.kind === 'Deployment' && label !== undefined ? byLabel.get(label) : undefined;
    if (!wanted) return copy;
    const containers = podContainers(copy);
    const target = containers.find((c) => c.name === labelName(wanted.service)) ?? containers[0];
    if (target) target.image = wanted.image;
    return copy;
  });
}

/** 0: every Deployment scaled to zero (stop; claims and everything else untouched). null: unchanged. */
export function withReplicas(manifests: readonly KubeObject[], replicas: 0 | null): KubeObject[] {
  return manifests.map((m) => {
    const copy = structuredClone(m) as KubeObject;
    if (replicas === null || m.kind !== 'Deployment') return copy;
    return { ...copy, spec: { ...(isRec(copy.spec) ? copy.spec : {}), replicas } };
  });
}
