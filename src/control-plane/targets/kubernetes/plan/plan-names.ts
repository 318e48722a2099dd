/**
 * Every name a plan uses, decided before any object is built, so references between objects (a
 * Deployment's claimName, an Ingress backend, a sibling's `DENV_<S>_HOST`) agree with the names
 * evolve keeps: an object already live for the same service (or volume) keeps its live name.
 * Otherwise `<env>-<service>` and `<env>-<volume>` (kube-names.ts).
 */
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import type { Spec } from '../../../../contracts/spec-types.js';
import { kubeName, labelName, labelValue } from './kube-names.js';
import { matchLive } from './match-live.js';

export interface ServiceNames {
  readonly deployment: string;
  readonly service: string;
  readonly ingress: string;
  readonly tlsSecret: string;
  readonly container: string;
}

export interface VolumeNames {
  readonly claim: string;
  /** The volume's name inside a pod spec. */
  readonly podVolume: string;
}

export interface PlanNames {
  readonly services: Readonly<Record<string, ServiceNames>>;
  readonly volumes: Readonly<Record<string, VolumeNames>>;
  /** The names kept from live objects where they differ from the planned ones, one sentence each (for the summary). */
  readonly kept: readonly string[];
}

/** How the summary says a live name was kept (evolve-manifests.ts says it the same way). */
export function keptName(kind: string, live: string, planned: string): string {
  return `${kind} ${live} keeps its live name (planned: ${planned})`;
}

/** The datasets some service mounts, in the order the spec declares them. */
export function usedVolumes(spec: Spec): string[] {
  const used = new Set(Object.values(spec.services).flatMap((s) => s.volumes.map((v) => v.source)));
  return spec.volumes.filter((v) => used.has(v));
}

export function planNames(spec: Spec, envName: string, live: readonly KubeObject[]): PlanNames {
  const kept: string[] = [];
  const keep = (kind: string, found: KubeObject | null, planned: string): string => {
    if (found && found.metadata.name !== planned) kept.push(keptName(kind, found.metadata.name, planned));
    return found?.metadata.name ?? planned;
  };
  const services: Record<string, ServiceNames> = {};
  for (const name of Object.keys(spec.services).sort()) {
    const planned = kubeName(envName, name);
    const liveName = (kind: 'Deployment' | 'Service' | 'Ingress'): string => keep(kind, matchLive(live, { kind, service: labelValue(name) }), planned);
    services[name] = {
      deployment: liveName('Deployment'),
      service: liveName('Service'),
      ingress: liveName('Ingress'),
      tlsSecret: kubeName(envName, name, 'tls'),
      container: labelName(name),
    };
  }
  const volumes: Record<string, VolumeNames> = {};
  for (const volume of usedVolumes(spec)) {
    const planned = kubeName(envName, volume);
    const claim = keep('PersistentVolumeClaim', matchLive(live, { kind: 'PersistentVolumeClaim', name: planned, volume: labelValue(volume) }), planned);
    volumes[volume] = { claim, podVolume: labelName(`data-${volume}`) };
  }
  return { services, volumes, kept };
}
