/**
 * Which live object a planned one stands for (evolve, and the names a plan keeps): Deployments,
 * Services and Ingresses by kind + `denv.dev/service` label; PVCs by kind + name, else by their
 * `denv.dev/volume` label (a claim an earlier plan named otherwise). Several candidates (someone
 * copied an object): the first by name, so the answer does not depend on the order of `live`.
 */
import { LABEL_SERVICE, type KubeObject } from '../../../../contracts/kubernetes.js';
import { LABEL_VOLUME } from './plan-labels.js';

export type LiveKey =
  | { readonly kind: 'Deployment' | 'Service' | 'Ingress'; readonly service: string }
  | { readonly kind: 'PersistentVolumeClaim'; readonly name: string; readonly volume: string };

/** The key of a planned object (its labels say which service or volume it is for), null for other kinds. */
export function liveKeyOf(planned: KubeObject): LiveKey | null {
  const labels = planned.metadata.labels ?? {};
  if (planned.kind === 'PersistentVolumeClaim') return { kind: 'PersistentVolumeClaim', name: planned.metadata.name, volume: labels[LABEL_VOLUME] ?? '' };
  if ((planned.kind === 'Deployment' || planned.kind === 'Service' || planned.kind === 'Ingress') && labels[LABEL_SERVICE] !== undefined) {
    return { kind: planned.kind, service: labels[LABEL_SERVICE] };
  }
  return null;
}

const byName = (a: KubeObject, b: KubeObject): number => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);

/** `key`'s live object, or null. Label values in keys are the sanitised ones (plan-labels.ts). */
export function matchLive(live: readonly KubeObject[], key: LiveKey): KubeObject | null {
  const ofKind = live.filter((o) => o.kind === key.kind).sort(byName);
  if (key.kind === 'PersistentVolumeClaim') {
    return ofKind.find((o) => o.metadata.name === key.name) ?? (key.volume === '' ? undefined : ofKind.find((o) => o.metadata.labels?.[LABEL_VOLUME] === key.volume)) ?? null;
  }
  return ofKind.find((o) => o.metadata.labels?.[LABEL_SERVICE] === key.service) ?? null;
}
