/**
 * Evolve: a fresh plan fitted onto what the env already runs, so a re-plan of a live app changes
 * what the spec changed and leaves the rest as the cluster has it (seed 002: "names, PVCs, and
 * local drift are preserved"). Pure; `live` is the env's objects as the agent read them.
 *
 * For each planned object, its live counterpart (match-live.ts) gives:
 *   - its name, when it differs (an earlier plan or someone else named it; plan-names.ts already
 *     used the live names, so references between objects agree);
 *   - the labels and annotations others added (planned values win on denv's own keys; the API
 *     server's and controllers' bookkeeping annotations are not copied);
 *   - a Deployment's `spec.replicas` when someone scaled it (not 0: that is denv's own stop), and
 *     its selector when it differs (immutable in apps/v1; the pod labels then carry it too);
 *   - a PVC's spec as it is (immutable once bound: access modes, size, class).
 * A live PVC no planned object matches is carried over unchanged: the env's data is never dropped
 * from a plan (teardown deletes what the plan names, stop leaves claims alone).
 */
import { LABEL_MANAGED_BY, type KubeObject } from '../../../../contracts/kubernetes.js';
import { liveKeyOf, matchLive } from './match-live.js';
import { keptName } from './plan-names.js';

export interface Evolved {
  readonly manifests: KubeObject[];
  /** What evolve kept from the cluster, one plain sentence each (for the summary). */
  readonly preserved: string[];
  /** Live objects (not claims) no planned object stands for: a service the spec no longer has. An apply
   *  does not delete them; the summary names them. Sorted by kind, then name. */
  readonly leftBehind: KubeObject[];
}

/** Bookkeeping of the API server and controllers, never copied into a plan. */
const SYSTEM_ANNOTATION = /^(kubectl\.kubernetes\.io\/last-applied-configuration$|deployment\.kubernetes\.io\/|pv\.kubernetes\.io\/|volume\.(beta\.)?kubernetes\.io\/)/;
/** denv's own label keys: the plan's values (or absence) win. */
const DENV_LABEL = /^denv\.dev\//;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The string entries of a live map, sorted by key (the order a live object came in is not ours to depend on). */
function stringMap(v: unknown): Record<string, string> {
  if (!isRec(v)) return {};
  return Object.fromEntries(
    Object.entries(v)
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** `planned`, then the live entries it lacks (sorted), minus `drop`; the added keys are listed in `added`. */
function union(planned: Readonly<Record<string, string>> | undefined, live: unknown, drop: (key: string) => boolean, added: string[]): Record<string, string> | undefined {
  const out: Record<string, string> = { ...planned };
  const extra = stringMap(live);
  for (const key of Object.keys(extra)) {
    if (Object.hasOwn(out, key) || drop(key)) continue;
    out[key] = extra[key]!;
    added.push(key);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** JSON with object keys sorted: equal values compare equal whatever order the API server wrote them in. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isRec(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

function evolveMetadata(planned: KubeObject, live: KubeObject, preserved: string[]): KubeObject['metadata'] {
  const addedLabels: string[] = [];
  const addedAnnotations: string[] = [];
  const labels = union(planned.metadata.labels, live.metadata.labels, (k) => DENV_LABEL.test(k) || k === LABEL_MANAGED_BY, addedLabels);
  const annotations = union(planned.metadata.annotations, live.metadata.annotations, (k) => SYSTEM_ANNOTATION.test(k), addedAnnotations);
  const { labels: _l, annotations: _a, ...rest } = planned.metadata;
  if (live.metadata.name !== planned.metadata.name) preserved.push(keptName(planned.kind, live.metadata.name, planned.metadata.name));
  const name = live.metadata.name;
  if (addedLabels.length > 0) preserved.push(`${planned.kind} ${name} keeps labels added in the cluster: ${addedLabels.join(', ')}`);
  if (addedAnnotations.length > 0) preserved.push(`${planned.kind} ${name} keeps annotations added in the cluster: ${addedAnnotations.join(', ')}`);
  return { ...rest, name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) };
}

function evolveDeploymentSpec(planned: Rec, live: Rec, name: string, preserved: string[]): Rec {
  let spec = planned;
  const replicas = live.replicas;
  if (typeof replicas === 'number' && Number.isInteger(replicas) && replicas > 0 && replicas !== planned.replicas) {
    spec = { ...spec, replicas };
    preserved.push(`Deployment ${name} keeps ${replicas} replicas (scaled in the cluster)`);
  }
  if (isRec(live.selector) && canonical(live.selector) !== canonical(planned.selector)) {
    const template = isRec(planned.template) ? planned.template : {};
    const meta = isRec(template.metadata) ? template.metadata : {};
    const labels = { ...stringMap(meta.labels), ...stringMap(live.selector.matchLabels) };
    spec = { ...spec, selector: structuredClone(live.selector), template: { ...template, metadata: { ...meta, labels } } };
    preserved.push(`Deployment ${name} keeps its live selector (immutable)`);
  }
  return spec;
}

/** The parts of a live claim's spec a plan restates: access modes, requested size, class. */
function liveClaimSpec(live: Rec): Rec {
  const resources = isRec(live.resources) ? live.resources : {};
  const storage = stringMap(resources.requests).storage;
  return {
    ...(Array.isArray(live.accessModes) ? { accessModes: [...(live.accessModes as unknown[])] } : {}),
    ...(storage !== undefined ? { resources: { requests: { storage } } } : {}),
    ...(typeof live.storageClassName === 'string' ? { storageClassName: live.storageClassName } : {}),
  };
}

function claimText(spec: Rec): string {
  const storage = isRec(spec.resources) ? stringMap(spec.resources.requests).storage : undefined;
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes.map(String) : [];
  return [storage, ...modes, typeof spec.storageClassName === 'string' ? `class ${spec.storageClassName}` : 'no class'].filter(Boolean).join(', ');
}

export function evolveManifests(planned: readonly KubeObject[], live: readonly KubeObject[]): Evolved {
  const preserved: string[] = [];
  const matched = new Set<KubeObject>();
  const manifests = planned.map((object): KubeObject => {
    const key = liveKeyOf(object);
    const found = key ? matchLive(live, key) : null;
    if (!found) return object;
    matched.add(found);
    const metadata = evolveMetadata(object, found, preserved);
    const plannedSpec = isRec(object.spec) ? object.spec : {};
    const liveSpec = isRec(found.spec) ? found.spec : {};
    if (object.kind === 'Deployment') return { ...object, metadata, spec: evolveDeploymentSpec(plannedSpec, liveSpec, metadata.name, preserved) };
    if (object.kind === 'PersistentVolumeClaim') {
      const spec = { ...plannedSpec, ...liveClaimSpec(liveSpec) };
      if (!('storageClassName' in liveSpec)) delete spec.storageClassName; // the live claim has none: neither does the plan
      if (canonical(spec) !== canonical(plannedSpec)) preserved.push(`PersistentVolumeClaim ${metadata.name} reused as it is (${claimText(spec)}; the plan alone would ask ${claimText(plannedSpec)})`);
      return { ...object, metadata, spec };
    }
    return { ...object, metadata };
  });
  const orphans = live
    .filter((o) => o.kind === 'PersistentVolumeClaim' && !matched.has(o) && !manifests.some((m) => m.kind === o.kind && m.metadata.name === o.metadata.name))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const claim of orphans) {
    const labels = stringMap(claim.metadata.labels);
    const annotations = Object.fromEntries(Object.entries(stringMap(claim.metadata.annotations)).filter(([k]) => !SYSTEM_ANNOTATION.test(k)));
    const spec = liveClaimSpec(isRec(claim.spec) ? claim.spec : {});
    manifests.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim.metadata.name, ...(Object.keys(labels).length > 0 ? { labels } : {}), ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
      spec,
    });
    preserved.push(`PersistentVolumeClaim ${claim.metadata.name} is no longer mounted and is kept with its data`);
  }
  const leftBehind = live
    .filter((o) => o.kind !== 'PersistentVolumeClaim' && !matched.has(o))
    .sort((a, b) => (a.kind !== b.kind ? (a.kind < b.kind ? -1 : 1) : a.metadata.name < b.metadata.name ? -1 : 1));
  return { manifests, preserved, leftBehind };
}
