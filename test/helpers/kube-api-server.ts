/**
 * A local stand-in for a Kubernetes API server, for the contract tests of the Kubernetes agent's
 * cluster client (src/agent/kubernetes/). It speaks only the documented endpoints denv uses
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/, .../server-side-apply/), and it
 * checks what it is sent instead of echoing it:
 *
 *   GET    /version, /api, /api/v1, /apis, /apis/{group}/{version}     discovery (cert-manager.io/v1
 *                                                                      only with `certManager: true`)
 *   GET    …/{resource}?labelSelector=…   a List (items carry no apiVersion/kind, as the real server)
 *   GET    …/{resource}/{name}            one object; 404 Status NotFound
 *   PATCH  …/{resource}/{name}            server-side apply only:
 *            Content-Type application/apply-patch+yaml, else 415; `fieldManager=denv`, else 422;
 *            the body (YAML or JSON) names the URL's apiVersion/kind/name (and namespace, when it
 *            has one), else 422; the merged object validates against the Kubernetes schemas
 *            (kubernetes-models) plus the name, label and selector rules, else 422 Status Invalid
 *            with causes; without `force=true` a field another manager owns and this patch changes
 *            is a 409 Conflict, as the real server says
 *   DELETE …/{resource}/{name}            `propagationPolicy` Orphan|Background|Foreground (else
 *                                         400); 404 when absent
 *   GET    …/pods/{name}/log              `container` (required for a pod of several containers),
 *                                         `tailLines`, `timestamps`; 400 while the container waits
 *                                         to start (an image that cannot be pulled)
 * Anything else (POST, PUT, other patch types) is refused: denv only applies. Every request needs
 * `Authorization: Bearer <token>` (401 otherwise) and is recorded first, refused or not.
 *
 * Apply merges by leaf path, with ownership per path as the real server keeps it per field:
 * objects (maps such as labels, annotations, spec) merge key by key, while lists and scalars the
 * patch holds replace what is stored. A field another manager set (`put`: a `spec.replicas` scaled
 * with kubectl, an annotation) survives when denv's apply omits it; a field denv itself applied
 * before and now omits is removed, as the real server removes fields their applier stopped
 * sending (maps left empty by that go too). Unlike the real server, a list (containers, ports) is
 * one field, not merged by its keys.
 *
 * The simulated Deployment controller: a Deployment owns pods `<deploy>-<template hash>-<n>`
 * carrying its template's labels (`spec.replicas`, defaulted to 1 on create, of them per
 * template). State is computed when read, never by timers: a pod is Running and Ready once
 * `readyAfterMs` (default 0: at once) have passed since it was made — unless an image of its
 * containers fails (`failImages`, `failImage`): then it is Pending (ImagePullBackOff, ErrImagePull)
 * or Running and not ready (CrashLoopBackOff: waiting, last terminated Error; OOMKilled: running,
 * last terminated OOMKilled), its restarts counting up by one each time the pod is read — or unless
 * an image of its containers is held (`holdImage`): then it is Running and not ready with no reason
 * (a readiness probe not yet passing), for as long as the hold lasts. When the
 * template changes, the new pods are made at once and the old ones stay until every new pod is
 * ready — a rollout of a failing image leaves the old version serving, as a RollingUpdate does.
 * The Deployment's status (observedGeneration = generation at once; replicas, updatedReplicas,
 * readyReplicas, availableReplicas omitted when 0, as the real server's omitempty) follows its pods.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { IngressClass } from 'kubernetes-models/networking.k8s.io/v1/IngressClass';
import { StorageClass } from 'kubernetes-models/storage.k8s.io/v1/StorageClass';

type Json = Record<string, unknown>;

/** Why the pods of a failing image are not ready. */
export type FailReason = 'CrashLoopBackOff' | 'ImagePullBackOff' | 'ErrImagePull' | 'OOMKilled';

export interface KubeApiServerOptions {
  /** The bearer token required of every request (default: random). */
  readonly token?: string;
  /** The namespace `kubeconfig()` names (default `denv-test`). */
  readonly namespace?: string;
  /** `GET /version`'s gitVersion (default `v1.31.2`). */
  readonly version?: string;
  /** Serve cert-manager's API group `cert-manager.io/v1`. */
  readonly certManager?: boolean;
  readonly ingressClasses?: readonly { readonly name: string; readonly default?: boolean }[];
  readonly storageClasses?: readonly { readonly name: string; readonly default?: boolean }[];
  /** Images whose pods never become ready; a Set means CrashLoopBackOff. */
  readonly failImages?: ReadonlySet<string> | ReadonlyMap<string, FailReason>;
  /** A new pod is Ready this long after it was made (default 0: at once). */
  readonly readyAfterMs?: number;
}

/** One request as received: `query` decoded, `body` parsed (JSON, or YAML for an apply). */
export interface KubeRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly contentType: string | null;
  readonly body: unknown;
}

export interface KubeApiServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly token: string;
  readonly namespace: string;
  readonly requests: KubeRequest[];
  /** Copies of the stored objects (with their computed status), and the simulated pods; of one kind when given. */
  objects(kind?: string): Json[];
  /** Creates or changes an object "in the cluster" as `manager` would (an Update, merged like an apply; no
   *  validation): e.g. `put({apiVersion: 'apps/v1', kind: 'Deployment', metadata: {name: 'web'}, spec: {replicas: 5}})`.
   *  The namespace defaults to the server's. Returns the stored object. */
  put(obj: Json, manager?: string): Json;
  /** Pods running `image` fail from now on with `reason`. */
  failImage(image: string, reason?: FailReason): void;
  /** Pods running `image` are not ready, with no reason (nothing a waiter gives up on), until the
   *  returned function is called; then they are ready as any other pod. A failing image still fails. */
  holdImage(image: string): () => void;
  /** The lines every pod of `deployment` logs (oldest first). */
  setLogs(deployment: string, lines: readonly string[]): void;
  /** Writes a kubeconfig at `path` pointing here (token user; the server's namespace unless `namespace`
   *  is given, none with null). Returns `path`. */
  kubeconfig(path: string, o?: { readonly namespace?: string | null }): string;
  close(): Promise<void>;
}

interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly model?: new (data: never) => { validate(): void };
}

const CORE: ResourceType[] = [
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, model: Pod },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true, model: Service },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, model: ConfigMap },
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', namespaced: true, model: PersistentVolumeClaim },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, model: Deployment },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', namespaced: true, model: Ingress },
  { group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', namespaced: false, model: IngressClass },
  { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, model: StorageClass },
];
const CERT_MANAGER: ResourceType[] = [
  { group: 'cert-manager.io', version: 'v1', kind: 'Certificate', plural: 'certificates', namespaced: true },
  { group: 'cert-manager.io', version: 'v1', kind: 'Issuer', plural: 'issuers', namespaced: true },
  { group: 'cert-manager.io', version: 'v1', kind: 'ClusterIssuer', plural: 'clusterissuers', namespaced: false },
];

const typeOf = (kind: string) => CORE.find((t) => t.kind === kind)!;
const gvOf = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

// RFC 1123 subdomain (most names), RFC 1035 label (Service names), label keys and values.
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?=.{0,63}$)([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const labelKeyOk = (k: string) => {
  const slash = k.lastIndexOf('/');
  return slash < 0 ? LABEL_NAME.test(k) : DNS_SUBDOMAIN.test(k.slice(0, slash)) && LABEL_NAME.test(k.slice(slash + 1));
};

/** A field's place in an object: its keys from the root (a key may hold dots: `denv.dev/env`). */
type FieldPath = readonly string[];
/** One string per path, for maps and sets (`["metadata","labels","denv.dev/env"]`). */
const pathId = (p: FieldPath) => JSON.stringify(p);
/** As kubectl shows it: `.metadata.labels.denv.dev/env`. */
const pathText = (p: FieldPath) => `.${p.join('.')}`;
/** True when `q` is below `p`. */
const below = (q: FieldPath, p: FieldPath) => q.length > p.length && p.every((k, i) => q[i] === k);
const valueAtPath = (o: unknown, p: FieldPath) => p.reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), o);

/** Leaf paths of a patch (`.spec.replicas`): maps are walked, lists and scalars are leaves. */
function leafPaths(v: unknown, prefix: FieldPath = []): FieldPath[] {
  if (!isObj(v) || (Object.keys(v).length === 0 && prefix.length > 0)) return [prefix];
  return Object.entries(v).flatMap(([k, x]) => leafPaths(x, [...prefix, k]));
}
/** Keys a client may not set: the server's bookkeeping. */
const IDENTITY = new Set([['apiVersion'], ['kind'], ['metadata', 'name'], ['metadata', 'namespace']].map(pathId));
const SERVER_FIELDS = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'deletionTimestamp'];
const valueAt = (o: unknown, path: string) => path.split('.').slice(1).reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), o);

/** The patch over the stored object: maps merge key by key, everything else the patch holds replaces. */
function merge(base: unknown, patch: unknown): unknown {
  if (!isObj(base) || !isObj(patch)) return clone(patch);
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = v === null ? undefined : merge(base[k], v);
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

/** `obj` without the leaves at `paths`; maps those removals leave empty are removed too. */
function withoutPaths(obj: Json, paths: readonly FieldPath[]): Json {
  const out = clone(obj);
  for (const keys of paths) {
    const chain: Json[] = [out];
    for (const k of keys.slice(0, -1)) {
      const next = chain.at(-1)![k];
      if (!isObj(next)) break;
      chain.push(next);
    }
    if (chain.length !== keys.length) continue; // the path is not there any more
    delete chain.at(-1)![keys.at(-1)!];
    for (let i = chain.length - 1; i > 0 && Object.keys(chain[i]!).length === 0; i--) delete chain[i - 1]![keys[i - 1]!];
  }
  return out;
}

/** A label selector, equality- and set-based; null when it holds anything else. */
function parseSelector(text: string): ((labels: Readonly<Record<string, string>>) => boolean) | null {
  const terms = text.match(/([^,(]+(\([^)]*\))?)/g) ?? [];
  const tests: ((l: Readonly<Record<string, string>>) => boolean)[] = [];
  for (const raw of terms) {
    const e = raw.trim();
    let m: RegExpExecArray | null;
    if (!e) continue;
    if ((m = /^([^\s!=]+)\s*!=\s*(\S*)$/.exec(e))) {
      const [, k, v] = m;
      tests.push((l) => l[k!] !== v);
    } else if ((m = /^([^\s!=]+)\s*==?\s*(\S*)$/.exec(e))) {
      const [, k, v] = m;
      tests.push((l) => l[k!] === v);
    } else if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(e))) {
      const [, k, op, list] = m;
      const values = list!.split(',').map((s) => s.trim());
      tests.push((l) => (op === 'in' ? values.includes(l[k!] ?? '\0') : !values.includes(l[k!] ?? '\0')));
    } else if ((m = /^!(\S+)$/.exec(e))) {
      const k = m[1]!;
      tests.push((l) => !(k in l));
    } else if ((m = /^(\S+)$/.exec(e))) {
      const k = m[1]!;
      tests.push((l) => k in l);
    } else return null;
  }
  return (l) => tests.every((t) => t(l));
}

interface Stored {
  obj: Json;
  /** Leaf path (pathId) → the manager that last set it. */
  readonly owners: Map<string, string>;
  /** Manager → its operation (Apply, Update). */
  readonly operations: Map<string, 'Apply' | 'Update'>;
}

interface SimPod {
  readonly name: string;
  readonly namespace: string;
  readonly deployment: string;
  readonly hash: string;
  readonly index: number;
  readonly labels: Record<string, string>;
  readonly containers: readonly { name: string; image: string }[];
  readonly created: number;
  reads: number;
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly causes: readonly { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

export async function startKubeApiServer(o: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const token = o.token ?? randomBytes(16).toString('hex');
  const namespace = o.namespace ?? 'denv-test';
  const gitVersion = o.version ?? 'v1.31.2';
  const readyAfterMs = o.readyAfterMs ?? 0;
  const types = [...CORE, ...(o.certManager ? CERT_MANAGER : [])];
  const failing = new Map<string, FailReason>(o.failImages instanceof Map ? o.failImages : [...(o.failImages ?? [])].map((i) => [i as string, 'CrashLoopBackOff' as const]));
  const held = new Set<string>();
  const store = new Map<string, Stored>();
  const pods = new Map<string, SimPod>();
  const logs = new Map<string, readonly string[]>();
  const requests: KubeRequest[] = [];
  let resourceVersion = 1000;

  const keyOf = (t: ResourceType, ns: string, name: string) => `${gvOf(t)}|${t.kind}|${ns}|${name}`;
  const typeOfKind = (apiVersion: string, kind: string) => types.find((t) => gvOf(t) === apiVersion && t.kind === kind);
  const notFound = (t: ResourceType, name: string) => new ApiError(404, 'NotFound', `${t.plural}${t.group ? `.${t.group}` : ''} "${name}" not found`);

  // ---- the simulated Deployment controller -------------------------------------------------

  const templateHash = (dep: Json) => createHash('sha256').update(JSON.stringify(valueAt(dep, '.spec.template') ?? {})).digest('hex').slice(0, 10);
  const podsOf = (ns: string, deployment: string) => [...pods.values()].filter((p) => p.namespace === ns && p.deployment === deployment);
  const failureOf = (p: SimPod) => p.containers.map((c) => failing.get(c.image)).find((r) => r !== undefined) ?? null;
  const podReady = (p: SimPod) => failureOf(p) === null && !p.containers.some((c) => held.has(c.image)) && Date.now() >= p.created + readyAfterMs;

  /** After a Deployment is written: the pods of its current template number `spec.replicas`. */
  function reconcile(ns: string, name: string) {
    const dep = store.get(keyOf(typeOf('Deployment'), ns, name))?.obj;
    if (!dep) return;
    const hash = templateHash(dep);
    const desired = Number(valueAt(dep, '.spec.replicas') ?? 1);
    const current = podsOf(ns, name).filter((p) => p.hash === hash);
    for (const p of current.sort((a, b) => b.index - a.index).slice(0, Math.max(0, current.length - desired))) pods.delete(`${ns}/${p.name}`);
    const used = new Set(current.map((p) => p.index));
    const labels = (valueAt(dep, '.spec.template.metadata.labels') ?? {}) as Record<string, string>;
    const containers = ((valueAt(dep, '.spec.template.spec.containers') ?? []) as Json[]).map((c) => ({ name: String(c.name), image: String(c.image) }));
    for (let i = 0, made = Math.min(current.length, desired); made < desired; i++) {
      if (used.has(i)) continue;
      const pod: SimPod = { name: `${name}-${hash}-${i}`, namespace: ns, deployment: name, hash, index: i, labels: { ...labels, 'pod-template-hash': hash }, containers, created: Date.now(), reads: 0 };
      pods.set(`${ns}/${pod.name}`, pod);
      made++;
    }
  }

  /** When read: once every pod of the current template is ready, the old template's pods are gone. */
  function settle(ns: string, name: string) {
    const dep = store.get(keyOf(typeOf('Deployment'), ns, name))?.obj;
    if (!dep) return;
    const hash = templateHash(dep);
    const all = podsOf(ns, name);
    if (all.filter((p) => p.hash === hash).every(podReady)) for (const p of all) if (p.hash !== hash) pods.delete(`${ns}/${p.name}`);
  }

  function podJson(p: SimPod): Json {
    p.reads++;
    const reason = failureOf(p);
    const ready = podReady(p);
    const started = new Date(p.created).toISOString();
    const statusOf = (c: { name: string; image: string }): Json => {
      const r = failing.get(c.image);
      const base = { name: c.name, image: c.image, imageID: '', started: r === undefined };
      if (r === 'ImagePullBackOff' || r === 'ErrImagePull')
        return { ...base, ready: false, restartCount: 0, state: { waiting: { reason: r, message: `Back-off pulling image "${c.image}"` } }, lastState: {} };
      if (r === 'CrashLoopBackOff')
        return { ...base, ready: false, restartCount: p.reads, state: { waiting: { reason: r, message: `back-off 10s restarting failed container=${c.name} pod=${p.name}` } }, lastState: { terminated: { reason: 'Error', exitCode: 1, startedAt: started, finishedAt: started } } };
      if (r === 'OOMKilled')
        return { ...base, ready: false, restartCount: p.reads, state: { running: { startedAt: started } }, lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, startedAt: started, finishedAt: started } } };
      return { ...base, ready, restartCount: 0, state: { running: { startedAt: started } }, lastState: {} };
    };
    const pulling = reason === 'ImagePullBackOff' || reason === 'ErrImagePull';
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: p.name,
        namespace: p.namespace,
        labels: p.labels,
        uid: `pod-${p.name}`,
        creationTimestamp: started,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${p.deployment}-${p.hash}`, uid: `rs-${p.deployment}-${p.hash}`, controller: true }],
      },
      spec: { containers: p.containers.map((c) => ({ name: c.name, image: c.image })) },
      status: {
        phase: pulling ? 'Pending' : 'Running',
        conditions: [
          { type: 'PodScheduled', status: 'True' },
          { type: 'Ready', status: ready ? 'True' : 'False', ...(ready ? {} : { reason: 'ContainersNotReady' }) },
        ],
        containerStatuses: p.containers.map(statusOf),
        startTime: started,
      },
    };
  }

  /** A Deployment as served: its stored fields and the status its pods give. */
  function withStatus(t: ResourceType, obj: Json): Json {
    if (t.kind !== 'Deployment') return clone(obj);
    const meta = obj.metadata as Json;
    const ns = String(meta.namespace);
    const name = String(meta.name);
    settle(ns, name);
    const hash = templateHash(obj);
    const all = podsOf(ns, name);
    const ready = all.filter(podReady).length;
    const desired = Number(valueAt(obj, '.spec.replicas') ?? 1);
    const counts: Json = { replicas: all.length, updatedReplicas: all.filter((p) => p.hash === hash).length, readyReplicas: ready, availableReplicas: ready, unavailableReplicas: Math.max(0, desired - ready) };
    for (const k of Object.keys(counts)) if (counts[k] === 0) delete counts[k];
    const available = ready >= desired;
    return {
      ...clone(obj),
      status: {
        observedGeneration: meta.generation,
        ...counts,
        conditions: [{ type: 'Available', status: available ? 'True' : 'False', reason: available ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable' }],
      },
    };
  }

  // ---- writes -------------------------------------------------------------------------------

  function managedFields(s: Stored, apiVersion: string): Json[] {
    const byManager = new Map<string, string[]>();
    for (const [id, m] of s.owners) byManager.set(m, [...(byManager.get(m) ?? []), id]);
    return [...byManager].map(([manager, ids]) => {
      const fieldsV1: Json = {};
      for (const id of ids) {
        let node = fieldsV1;
        for (const k of JSON.parse(id) as string[]) node = (node[`f:${k}`] ??= {}) as Json;
      }
      return { manager, operation: s.operations.get(manager) ?? 'Update', apiVersion, time: new Date().toISOString(), fieldsType: 'FieldsV1', fieldsV1 };
    });
  }

  /** Stores `patch` merged over the object at (t, ns, name) on behalf of `manager`; refuses conflicts unless forced. */
  function write(t: ResourceType, ns: string, name: string, patch: Json, manager: string, operation: 'Apply' | 'Update', o: { force: boolean; validate: boolean }): { obj: Json; created: boolean } {
    const key = keyOf(t, ns, name);
    const existing = store.get(key);
    const body = clone(patch);
    delete body.status;
    const meta = isObj(body.metadata) ? body.metadata : {};
    for (const f of SERVER_FIELDS) delete meta[f];
    body.metadata = { ...meta, name, ...(t.namespaced ? { namespace: ns } : {}) };
    const paths = leafPaths(body).filter((p) => !IDENTITY.has(pathId(p)));
    if (existing && !o.force) {
      const conflicts = paths.filter((p) => {
        const owner = existing.owners.get(pathId(p));
        return owner !== undefined && owner !== manager && !same(valueAtPath(existing.obj, p), valueAtPath(body, p));
      });
      if (conflicts.length)
        throw new ApiError(409, 'Conflict', `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? 's' : ''}: ${conflicts.map((p) => `conflict with "${existing.owners.get(pathId(p))}": ${pathText(p)}`).join(', ')}`);
    }
    // Server-side apply: what this manager applied before and applies no more is removed (unless the
    // new patch sets something at or under that path, or above it: that replaces it anyway).
    const dropped = operation === 'Apply' && existing
      ? [...existing.owners]
          .filter(([, m]) => m === manager)
          .map(([id]) => JSON.parse(id) as FieldPath)
          .filter((p) => !paths.some((q) => pathId(q) === pathId(p) || below(q, p) || below(p, q)))
      : [];
    const base = existing ? withoutPaths(existing.obj, dropped) : {};
    const merged = merge(base, body) as Json;
    if (t.kind === 'Deployment' && isObj(merged.spec) && merged.spec.replicas === undefined) merged.spec.replicas = 1;
    if (o.validate) validate(t, merged);
    // A no-op apply changes nothing (resourceVersion stays); generation counts changes outside metadata and status.
    const content = (x: Json) => JSON.stringify({ ...x, metadata: undefined, status: undefined });
    const changed = !existing || !same(existing.obj, merged);
    const m = merged.metadata as Json;
    if (!existing) Object.assign(m, { uid: randomUUID(), creationTimestamp: new Date().toISOString(), generation: 1 });
    else if (content(existing.obj) !== content(merged)) m.generation = Number(m.generation) + 1;
    if (changed) m.resourceVersion = String(++resourceVersion);
    const s: Stored = existing ?? { obj: merged, owners: new Map(), operations: new Map() };
    s.obj = merged;
    for (const p of dropped) s.owners.delete(pathId(p));
    for (const p of paths) s.owners.set(pathId(p), manager);
    s.operations.set(manager, operation);
    m.managedFields = managedFields(s, gvOf(t));
    store.set(key, s);
    if (t.kind === 'Deployment') reconcile(ns, name);
    return { obj: withStatus(t, merged), created: !existing };
  }

  /** The API server's validation, as far as the tests need it: the schema, names, labels, selectors. */
  function validate(t: ResourceType, obj: Json) {
    const causes: { field: string; message: string }[] = [];
    if (t.model) {
      try {
        new t.model(obj as never).validate();
      } catch (e) {
        const errors = (e as { errors?: { instancePath: string; message?: string; params?: { missingProperty?: string } }[] }).errors ?? [];
        for (const err of errors) {
          const field = (err.instancePath + (err.params?.missingProperty ? `/${err.params.missingProperty}` : ''))
            .split('/')
            .slice(1)
            .map((k, i) => (/^\d+$/.test(k) ? `[${k}]` : i ? `.${k}` : k))
            .join('');
          causes.push({ field, message: err.params?.missingProperty ? 'Required value' : `Invalid value: ${err.message ?? 'invalid'}` });
        }
      }
    }
    const meta = obj.metadata as Json;
    const name = String(meta.name);
    if (!(t.kind === 'Service' ? DNS_LABEL : DNS_SUBDOMAIN).test(name)) causes.push({ field: 'metadata.name', message: `Invalid value: "${name}": ${t.kind === 'Service' ? 'a DNS-1035 label' : 'a lowercase RFC 1123 subdomain'} must consist of lower case alphanumeric characters or '-'` });
    const labelMaps: [string, unknown][] = [
      ['metadata.labels', meta.labels],
      ['spec.template.metadata.labels', valueAt(obj, '.spec.template.metadata.labels')],
    ];
    for (const [field, labels] of labelMaps)
      for (const [k, v] of Object.entries(isObj(labels) ? labels : {}))
        if (!labelKeyOk(k) || typeof v !== 'string' || !LABEL_VALUE.test(v)) causes.push({ field: `${field}`, message: `Invalid value: "${k}=${String(v)}": a valid label must be 63 characters or less, alphanumeric, '-', '_' or '.'` });
    if (t.kind === 'Deployment') {
      const want = (valueAt(obj, '.spec.selector.matchLabels') ?? {}) as Record<string, string>;
      const have = (valueAt(obj, '.spec.template.metadata.labels') ?? {}) as Record<string, string>;
      if (Object.entries(want).some(([k, v]) => have[k] !== v)) causes.push({ field: 'spec.template.metadata.labels', message: 'Invalid value: `selector` does not match template `labels`' });
    }
    if (causes.length) {
      const what = `${t.kind}${t.group ? `.${t.group}` : ''} "${name}"`;
      throw new ApiError(422, 'Invalid', `${what} is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`, causes);
    }
  }

  for (const c of o.ingressClasses ?? [])
    write(typeOf('IngressClass'), '', c.name, { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: c.name, ...(c.default ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } : {}) }, spec: { controller: `example.com/${c.name}` } }, 'kube-system', 'Update', { force: true, validate: true });
  for (const c of o.storageClasses ?? [])
    write(typeOf('StorageClass'), '', c.name, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: c.name, ...(c.default ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) }, provisioner: `example.com/${c.name}`, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' }, 'kube-system', 'Update', { force: true, validate: true });

  // ---- HTTP ---------------------------------------------------------------------------------

  const discovery = (group: string, version: string) => ({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: types
      .filter((t) => t.group === group && t.version === version)
      .flatMap((t) => [
        { name: t.plural, singularName: t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: ['delete', 'get', 'list', 'patch'] },
        ...(t.kind === 'Pod' ? [{ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] }] : []),
      ]),
  });
  const groups = () => [...new Set(types.filter((t) => t.group).map((t) => t.group))].map((g) => {
    const gv = { groupVersion: `${g}/v1`, version: 'v1' };
    return { name: g, versions: [gv], preferredVersion: gv };
  });

  function podLog(ns: string, name: string, q: URLSearchParams): string {
    const p = pods.get(`${ns}/${name}`);
    if (!p) throw new ApiError(404, 'NotFound', `pods "${name}" not found`);
    const container = q.get('container') ?? (p.containers.length === 1 ? p.containers[0]!.name : null);
    if (container === null) throw new ApiError(400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${p.containers.map((c) => c.name).join(' ')}]`);
    const c = p.containers.find((x) => x.name === container);
    if (!c) throw new ApiError(400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
    const r = failing.get(c.image);
    if (r === 'ImagePullBackOff' || r === 'ErrImagePull') throw new ApiError(400, 'BadRequest', `container "${container}" in pod "${name}" is waiting to start: trying and failing to pull image`);
    let lines = [...(logs.get(p.deployment) ?? [])];
    const tail = q.get('tailLines');
    if (tail !== null) {
      if (!/^\d+$/.test(tail)) throw new ApiError(400, 'BadRequest', `tailLines: Invalid value: "${tail}"`);
      lines = Number(tail) === 0 ? [] : lines.slice(-Number(tail));
    }
    const total = (logs.get(p.deployment) ?? []).length;
    // RFC3339Nano, one millisecond apart, so the lines of several pods interleave by time.
    const stamp = (i: number) => new Date(p.created + (total - lines.length + i)).toISOString().replace('Z', '000000Z');
    if (q.get('timestamps') === 'true') lines = lines.map((l, i) => `${stamp(i)} ${l}`);
    return lines.map((l) => `${l}\n`).join('');
  }

  function handle(method: string, url: URL, contentType: string | null, body: unknown): { code: number; json?: unknown; text?: string } {
    const path = url.pathname.replace(/\/+$/, '');
    const q = url.searchParams;
    if (method === 'GET' && path === '/version') return { code: 200, json: { major: '1', minor: gitVersion.split('.')[1] ?? '0', gitVersion, gitCommit: '0'.repeat(40), gitTreeState: 'clean', buildDate: '2024-01-01T00:00:00Z', goVersion: 'go1.22.0', compiler: 'gc', platform: 'linux/amd64' } };
    if (method === 'GET' && path === '/api') return { code: 200, json: { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] } };
    if (method === 'GET' && path === '/apis') return { code: 200, json: { kind: 'APIGroupList', apiVersion: 'v1', groups: groups() } };
    let m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (method === 'GET' && m) {
      const [group, version] = m[1] ? ['', m[1]] : [m[2]!, m[3]!];
      if (!types.some((t) => t.group === group && t.version === version)) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return { code: 200, json: discovery(group, version) };
    }
    m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(path);
    const t = m && types.find((x) => x.group === (m![1] ? '' : m![2]) && x.version === (m![1] ?? m![3]) && x.plural === m![5]);
    if (!m || !t || t.namespaced !== (m[4] !== undefined)) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    const ns = m[4] ? decodeURIComponent(m[4]) : '';
    const name = m[6] === undefined ? undefined : decodeURIComponent(m[6]);
    const sub = m[7];

    if (t.kind === 'Pod') {
      if (method !== 'GET') throw new ApiError(405, 'MethodNotAllowed', 'pods are simulated: only get, list and log are served');
      for (const s of store.values()) if (s.obj.kind === 'Deployment') settle(String((s.obj.metadata as Json).namespace), String((s.obj.metadata as Json).name));
      if (name !== undefined && sub === 'log') return { code: 200, text: podLog(ns, name, q) };
      if (sub !== undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      if (name !== undefined) {
        const p = pods.get(`${ns}/${name}`);
        if (!p) throw notFound(t, name);
        return { code: 200, json: podJson(p) };
      }
      const select = parseSelector(q.get('labelSelector') ?? '');
      if (!select) throw new ApiError(400, 'BadRequest', `unable to parse requirement: ${q.get('labelSelector')}`);
      const items = [...pods.values()].filter((p) => p.namespace === ns && select(p.labels)).sort((a, b) => a.name.localeCompare(b.name));
      return { code: 200, json: { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(resourceVersion) }, items: items.map((p) => ({ ...podJson(p), apiVersion: undefined, kind: undefined })) } };
    }
    if (sub !== undefined) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');

    if (method === 'GET' && name === undefined) {
      const select = parseSelector(q.get('labelSelector') ?? '');
      if (!select) throw new ApiError(400, 'BadRequest', `unable to parse requirement: ${q.get('labelSelector')}`);
      const items = [...store.values()]
        .map((s) => s.obj)
        .filter((x) => x.kind === t.kind && x.apiVersion === gvOf(t) && String((x.metadata as Json).namespace ?? '') === ns && select(((x.metadata as Json).labels ?? {}) as Record<string, string>))
        .map((x) => {
          const { apiVersion: _a, kind: _k, ...rest } = withStatus(t, x);
          return rest;
        });
      return { code: 200, json: { kind: `${t.kind}List`, apiVersion: gvOf(t), metadata: { resourceVersion: String(resourceVersion) }, items } };
    }
    if (name === undefined) throw new ApiError(405, 'MethodNotAllowed', `${method} on a collection is not served: denv applies with PATCH`);
    const key = keyOf(t, ns, name);

    if (method === 'GET') {
      const s = store.get(key);
      if (!s) throw notFound(t, name);
      return { code: 200, json: withStatus(t, s.obj) };
    }
    if (method === 'DELETE') {
      const policy = q.get('propagationPolicy') ?? 'Background';
      if (!['Orphan', 'Background', 'Foreground'].includes(policy)) throw new ApiError(400, 'BadRequest', `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
      const s = store.get(key);
      if (!s) throw notFound(t, name);
      store.delete(key);
      if (t.kind === 'Deployment' && policy !== 'Orphan') for (const p of podsOf(ns, name)) pods.delete(`${ns}/${p.name}`);
      return { code: 200, json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: t.group, kind: t.plural, uid: (s.obj.metadata as Json).uid } } };
    }
    if (method === 'PATCH') {
      if (contentType !== 'application/apply-patch+yaml') throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/apply-patch+yaml (this server serves server-side apply only; got ${contentType ?? 'none'})`);
      const manager = q.get('fieldManager');
      if (manager === null || manager === '') throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
      if (manager !== 'denv') throw new ApiError(422, 'Invalid', `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "${manager}": this server expects denv's field manager "denv"`);
      const force = q.get('force');
      if (force !== null && force !== 'true' && force !== 'false') throw new ApiError(400, 'BadRequest', `force: Invalid value: "${force}"`);
      if (!isObj(body)) throw new ApiError(400, 'BadRequest', 'the body of an apply must be an object (YAML or JSON)');
      const meta = isObj(body.metadata) ? body.metadata : {};
      const mismatch = [
        body.apiVersion !== gvOf(t) && `apiVersion "${String(body.apiVersion)}" is not the URL's "${gvOf(t)}"`,
        body.kind !== t.kind && `kind "${String(body.kind)}" is not the URL's "${t.kind}"`,
        meta.name !== name && `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
        meta.namespace !== undefined && meta.namespace !== ns && `the namespace of the object (${String(meta.namespace)}) does not match the namespace on the URL (${ns})`,
      ].filter((x): x is string => typeof x === 'string');
      if (mismatch.length) throw new ApiError(422, 'Invalid', mismatch.join('; '));
      const { obj, created } = write(t, ns, name, body, manager, 'Apply', { force: force === 'true', validate: true });
      return { code: created ? 201 : 200, json: obj };
    }
    throw new ApiError(405, 'MethodNotAllowed', `${method} is not served: denv applies with PATCH (server-side apply)`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const contentType = req.headers['content-type']?.split(';')[0]!.trim().toLowerCase() ?? null;
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      let parseError: string | null = null;
      if (raw) {
        try {
          body = contentType === 'application/apply-patch+yaml' ? parseYaml(raw) : JSON.parse(raw);
        } catch (e) {
          body = raw;
          parseError = (e as Error).message;
        }
      }
      const method = req.method ?? 'GET';
      requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType, body });
      const status = (code: number, reason: string, message: string, causes: readonly { field: string; message: string }[] = []) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(causes.length ? { details: { causes: causes.map((c) => ({ reason: 'FieldValueInvalid', ...c })) } } : {}), code }));
      };
      if (req.headers.authorization !== `Bearer ${token}`) return status(401, 'Unauthorized', 'Unauthorized');
      if (parseError) return status(400, 'BadRequest', `error decoding the body: ${parseError}`);
      try {
        const out = handle(method, url, contentType, body);
        if (out.text !== undefined) {
          res.writeHead(out.code, { 'content-type': 'text/plain' });
          res.end(out.text);
        } else {
          res.writeHead(out.code, { 'content-type': 'application/json' });
          res.end(JSON.stringify(out.json));
        }
      } catch (e) {
        if (e instanceof ApiError) return status(e.code, e.reason, e.message, e.causes);
        status(500, 'InternalError', (e as Error).stack ?? String(e));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  return {
    url,
    token,
    namespace,
    requests,
    objects(kind) {
      const stored = [...store.values()].map((s) => s.obj).filter((x) => kind === undefined || x.kind === kind);
      const out = stored.map((x) => withStatus(typeOfKind(String(x.apiVersion), String(x.kind))!, x));
      if (kind === undefined || kind === 'Pod') out.push(...[...pods.values()].map((p) => ({ ...podJson(p) })));
      return out;
    },
    put(obj, manager = 'kubectl') {
      const t = typeOfKind(String(obj.apiVersion), String(obj.kind));
      if (!t) throw new Error(`put: ${String(obj.apiVersion)} ${String(obj.kind)} is not served`);
      if (t.kind === 'Pod') throw new Error('put: pods are simulated by the Deployment controller');
      const meta = (obj.metadata ?? {}) as Json;
      return write(t, t.namespaced ? String(meta.namespace ?? namespace) : '', String(meta.name), obj, manager, 'Update', { force: true, validate: false }).obj;
    },
    failImage(image, reason = 'CrashLoopBackOff') {
      failing.set(image, reason);
    },
    holdImage(image) {
      held.add(image);
      return () => void held.delete(image);
    },
    setLogs(deployment, lines) {
      logs.set(deployment, [...lines]);
    },
    kubeconfig(path, k = {}) {
      const ns = k.namespace === undefined ? namespace : k.namespace;
      const config = {
        apiVersion: 'v1',
        kind: 'Config',
        // client-node 1.x refuses a plain-http server unless TLS verification is "skipped" (there is none to skip).
        clusters: [{ name: 'local', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'denv', user: { token } }],
        contexts: [{ name: 'local', context: { cluster: 'local', user: 'denv', ...(ns === null ? {} : { namespace: ns }) } }],
        'current-context': 'local',
      };
      writeFileSync(path, toYaml(config), { mode: 0o600 });
      return path;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
