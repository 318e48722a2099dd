/**
 * The LLM planner's conversation, built from the plan's input alone: the same input gives the same
 * messages byte for byte (keys sorted, live objects ordered), so a re-plan with unchanged input asks
 * the same question, and tests can assert the exact text.
 *
 * The system message is the contract: the reply format parseReply (reply.ts) reads, and denv's
 * rules, which the caller's validator checks again — the prompt only makes passing likely. The user
 * message carries the data: spec, facts, live objects, instructions, and what the deterministic
 * planner's helpers (../plan/) derive from them — object names (live names kept), labels, container
 * env with `${DENV_…}` filled in, probes, resources, Ingress hosts — so both planners name and label alike and the
 * model has no arithmetic to get wrong. Each failed try is appended as the model's reply (assistant)
 * and the problems found in it (user), so the model corrects itself.
 */
import { stringify } from 'yaml';
import { LABEL_ENV, LABEL_MANAGED_BY, LABEL_SERVICE, PLAN_KINDS, type ClusterFacts, type KubeObject, type PlanKind } from '../../../../contracts/kubernetes.js';
import type { Spec } from '../../../../contracts/spec-types.js';
import { containerEnv, ownedVariables } from '../plan/container-env.js';
import { containerProbes } from '../plan/container-probes.js';
import { containerResources } from '../plan/container-resources.js';
import { CLUSTER_ISSUER, CLUSTER_ISSUER_ANNOTATION, ingressClassOf, ingressTls } from '../plan/ingress-manifest.js';
import { LABEL_VOLUME, serviceLabels, volumeLabels } from '../plan/plan-labels.js';
import { planNames } from '../plan/plan-names.js';
import { DEFAULT_CLAIM_SIZE } from '../plan/pvc-manifest.js';
import type { ChatMessage } from './chat-client.js';
import { SealedValues, TOKEN_PREFIX } from './sealed-values.js';

export interface LlmPlanInput {
  readonly spec: Spec;
  readonly envName: string;
  /** From the Kubernetes agent's hello; `namespace` is where the plan is applied. */
  readonly facts: ClusterFacts;
  /** The env's objects as the cluster holds them now (empty on a first deploy). */
  readonly live: readonly KubeObject[];
  /** The project's instructions, then every re-plan guidance, in order. */
  readonly instructions: string;
  /** The version this plan replaces, if any. */
  readonly replacesVersion: number | null;
}

/** A failed try: the model's reply and what was wrong with it. */
export interface PreviousTry {
  readonly reply: string;
  readonly problems: readonly string[];
}

// The apiVersion each allowed kind is written with (the stable, GA ones).
const API_VERSIONS = {
  Deployment: 'apps/v1',
  Service: 'v1',
  PersistentVolumeClaim: 'v1',
  Ingress: 'networking.k8s.io/v1',
  ConfigMap: 'v1',
} as const satisfies Record<PlanKind, string>;

/** `sealed` stands in for every environment value shown (sealed-values.ts); the planner keeps it
 *  across tries to restore the values in the reply. */
export function buildMessages(input: LlmPlanInput, previous: readonly PreviousTry[], sealed = new SealedValues()): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: systemMessage(input) },
    { role: 'user', content: userMessage(input, sealed) },
  ];
  for (const p of previous) {
    messages.push({ role: 'assistant', content: p.reply });
    messages.push({ role: 'user', content: retryMessage(p.problems) });
  }
  return messages;
}

function systemMessage(input: LlmPlanInput): string {
  const { facts } = input;
  const ns = facts.namespace;
  const ingressClass = ingressClassOf(facts);
  const kinds = PLAN_KINDS.map((k) => `${k} (${API_VERSIONS[k]})`).join(', ');
  // As pvc-manifest.ts: storageClassName only when the cluster names a default class.
  const storage = facts.default_storage_class
    ? `storageClassName "${facts.default_storage_class}" (the cluster's default) unless the instructions name another of ${JSON.stringify(facts.storage_classes)}`
    : 'no storageClassName (the cluster names no default class) unless the instructions name one';
  // As ingress-manifest.ts: an Ingress needs an ingress class; TLS needs cert-manager (and the service not turning it off).
  const ingress = ingressClass
    ? [
        `- Ingress: for each service whose "Derived by denv" has \`ingress\`, one Ingress named as given, ingressClassName "${ingressClass}", a rule per host`,
        "  (path \"/\", pathType Prefix) to the service's Service (port: the spec's `edge.port`, else the service's first port).",
        facts.cert_manager
          ? `  When \`ingress.tls\` is true: a \`tls\` entry for those hosts with the TLS secret name given, and the annotation \`${CLUSTER_ISSUER_ANNOTATION}: ${CLUSTER_ISSUER}\` (cert-manager fills the secret).`
          : '  No TLS: the cluster reports no cert-manager, so the Ingresses serve plain HTTP; say so in the summary.',
        '  Hosts the instructions give a service are handled the same way. A service with no hosts gets no Ingress.',
      ]
    : ['- No Ingress: the cluster reports no ingress class, so nothing would serve one. The app is reached through its Services; say so in the summary.'];
  return [
    "You are denv's Kubernetes planner. You write the Kubernetes manifests that run one environment of an app,",
    "described by its Compose spec (denv's normalised form, JSON), on the cluster described by its facts. A person reads",
    'your summary and approves the plan before anything is applied; the manifests are applied exactly as you write them.',
    '',
    'Reply in exactly this format and nothing else:',
    '1. A plain-English summary: what will run, what changes compared with the live objects and why, and anything the',
    '   person approving should check. No YAML in the summary.',
    '2. Then one fenced code block opened by a line ```yaml and closed by a line ```, holding every manifest as',
    '   multi-document YAML (documents separated by a line ---). Only one ```yaml block in the reply.',
    '',
    'Rules (a plan that breaks one is rejected and sent back to you with the problems):',
    `- Namespace: "${ns}". Leave metadata.namespace out, or set it to exactly "${ns}".`,
    `- Kinds: only ${kinds}. Nothing else: no Secret, no RBAC, no Namespace, no cluster-scoped object.`,
    '- "Derived by denv" in the user message gives, per service and per volume, the object names, labels, container env, probes,',
    '  resources and Ingress hosts to use. Use those names exactly (they already keep the names of live objects).',
    `- Labels: every object has the labels given for its service or volume in metadata.labels (\`${LABEL_MANAGED_BY}\`, \`${LABEL_ENV}\`, and`,
    `  \`${LABEL_SERVICE}\` or, on a PersistentVolumeClaim, \`${LABEL_VOLUME}\`). A Deployment's pod template carries its service's labels and`,
    '  its selector matches exactly those labels.',
    "- Workloads: one Deployment per service of the spec, running the service's image exactly as given, with its command (as args),",
    '  entrypoint (as command), working_dir, ports and the env given under "Derived by denv" (values are literal; nothing fills',
    '  ${DENV_…} references on the cluster).',
    `- Values: every environment value (and ConfigMap data value) is shown as a token such as ${TOKEN_PREFIX}3; denv puts the real value`,
    '  back after your reply. Copy each token exactly, as the whole value where it is used; never change, split, join or invent one.',
    '- Probes: every container that has them under "Derived by denv" has that readinessProbe and livenessProbe (timings may be',
    '  relaxed if the instructions ask).',
    '- Resources: every container has resources.requests (cpu, memory) and resources.limits (memory, and cpu when given):',
    '  those under "Derived by denv" unless the instructions or a live object say otherwise.',
    "- Services: one Service (ClusterIP) per service with ports, exposing those ports, selecting the service's pod labels.",
    `- Volumes: each named volume a service mounts becomes its PersistentVolumeClaim (ReadWriteOnce, ${DEFAULT_CLAIM_SIZE} unless the instructions say`,
    `  otherwise), with ${storage}, mounted where the service mounts it. A Deployment mounting a ReadWriteOnce claim uses strategy Recreate.`,
    '- Confinement: no hostPath volumes, no privileged containers, no hostNetwork/hostPID/hostIPC, no ephemeralContainers.',
    ...ingress,
    '- Evolve, never recreate: when live objects are given, they are what runs now. Keep their names (do not rename anything);',
    '  keep every PersistentVolumeClaim a service still uses, unchanged (same name, storage class, access modes, size or larger),',
    '  since its data lives there; keep fields someone changed in the cluster (replicas, resources, annotations, extra env,',
    '  tolerations …) unless the spec or the instructions ask otherwise. Leave out status and server-set metadata',
    '  (uid, resourceVersion, creationTimestamp, generation, managedFields).',
    '- The instructions come from the person deploying: follow them within these rules, and say in the summary when one cannot be followed.',
    '- File contents of secrets and configs are withheld from you: do not invent Secrets or their values.',
  ].join('\n');
}

function userMessage(input: LlmPlanInput, sealed: SealedValues): string {
  const live = orderedLive(input.live, sealed);
  return [
    `Environment: ${input.envName}`,
    `Namespace: ${input.facts.namespace}`,
    input.replacesVersion === null ? 'This is the first plan of this environment.' : `This plan replaces version ${input.replacesVersion}.`,
    '',
    '## Compose spec',
    '```json',
    JSON.stringify(sortedKeys(specForPrompt(input.spec, sealed)), null, 2),
    '```',
    '',
    '## Cluster facts',
    '```json',
    JSON.stringify(sortedKeys(input.facts), null, 2),
    '```',
    '',
    '## Derived by denv',
    '```yaml',
    stringify(sortedKeys(derived(input, sealed)), { lineWidth: 0 }).trimEnd(),
    '```',
    '',
    `## Live objects (${live.length})`,
    ...(live.length === 0
      ? ['None: nothing of this environment runs in the cluster yet; create everything.']
      : ['```yaml', live.map((o) => stringify(o, { lineWidth: 0 })).join('---\n').trimEnd(), '```']),
    '',
    '## Instructions',
    input.instructions.trim() === '' ? '(none)' : input.instructions.trim(),
  ].join('\n');
}

function retryMessage(problems: readonly string[]): string {
  return [
    'That reply was rejected:',
    ...problems.map((p) => `- ${p}`),
    '',
    'Reply again in the same format (the summary, then one ```yaml block) with the complete, corrected set of manifests.',
  ].join('\n');
}

/** Per service and volume: what the deterministic planner's helpers make of the input (see the header). */
function derived(input: LlmPlanInput, sealed: SealedValues): unknown {
  const { spec, envName, live, facts } = input;
  const names = planNames(spec, envName, live);
  const ingressClass = ingressClassOf(facts);
  const services = Object.fromEntries(
    Object.entries(names.services).map(([name, n]) => {
      const svc = spec.services[name]!;
      let probes: Record<string, unknown>;
      try {
        probes = { ...containerProbes(svc.health, svc.ports) };
      } catch (err) {
        // The deterministic planner refuses such a spec too; the model is told why, and says so.
        probes = { probe_problem: err instanceof Error ? err.message : String(err) };
      }
      return [
        name,
        {
          names: { deployment: n.deployment, service: n.service, ingress: n.ingress, tls_secret: n.tlsSecret, container: n.container },
          labels: serviceLabels(envName, name),
          env: sealedEnv(containerEnv(svc, ownedVariables(spec, names, envName, name)), sealed),
          ...probes,
          resources: containerResources(svc.limits),
          ...(ingressClass && (svc.edge?.hostnames.length ?? 0) > 0 ? { ingress: { class: ingressClass, hosts: svc.edge!.hostnames, tls: ingressTls(svc, facts) } } : {}),
        },
      ];
    }),
  );
  const volumes = Object.fromEntries(Object.entries(names.volumes).map(([volume, v]) => [volume, { names: { claim: v.claim, pod_volume: v.podVolume }, labels: volumeLabels(envName, volume) }]));
  return { services, volumes };
}

/**
 * The spec without what must not leave denv: packed file contents (secrets, configs, bind mounts)
 * become their paths only, environment values tokens (sealed-values.ts).
 */
function specForPrompt(spec: Spec, sealed: SealedValues): unknown {
  const services = Object.fromEntries(
    Object.entries(spec.services).map(([name, svc]) => [name, { ...svc, environment: Object.fromEntries(Object.entries(svc.environment).map(([k, v]) => [k, sealed.seal(v)])) }]),
  );
  if (!spec.files) return { ...spec, services };
  const files = Object.fromEntries(Object.entries(spec.files).map(([name, tree]) => [name, { kind: tree.kind, paths: tree.entries.map((e) => e.path), contents: 'withheld' }]));
  return { ...spec, services, files };
}

/** denv's own variables (DENV_*, PORT: container-env.ts) are names and ports, shown as they are;
 *  every other value is the spec's and is shown as a token. */
const denvOwned = (name: string) => name === 'PORT' || name.startsWith('DENV_');
function sealedEnv(env: readonly { name: string; value: string }[], sealed: SealedValues): { name: string; value: string }[] {
  return env.map((e) => (denvOwned(e.name) ? e : { name: e.name, value: sealed.seal(e.value) }));
}

/** A live object with its containers' env values (but denv's own) and a ConfigMap's data values as tokens. */
function sealLive(o: Record<string, unknown>, sealed: SealedValues): Record<string, unknown> {
  if (o.kind === 'ConfigMap' && o.data && typeof o.data === 'object') {
    return { ...o, data: Object.fromEntries(Object.entries(o.data as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? sealed.seal(v) : v])) };
  }
  const pod = (o.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec;
  if (o.kind !== 'Deployment' || !pod) return o;
  const sealContainers = (list: unknown) =>
    Array.isArray(list)
      ? list.map((c: { env?: unknown }) =>
          Array.isArray(c.env) ? { ...c, env: c.env.map((e: { name?: unknown; value?: unknown }) => (typeof e.value === 'string' && !denvOwned(String(e.name)) ? { ...e, value: sealed.seal(e.value) } : e)) } : c,
        )
      : list;
  const spec = o.spec as { template: Record<string, unknown> };
  const podSpec = { ...pod, containers: sealContainers(pod.containers), ...(pod.initContainers ? { initContainers: sealContainers(pod.initContainers) } : {}) };
  return { ...o, spec: { ...spec, template: { ...spec.template, spec: podSpec } } };
}

// Server-set metadata: noise to the model (and managedFields is most of an object's size).
const SERVER_METADATA = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'selfLink'];
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Live objects by kind then name, keys sorted, without status and server-set metadata. */
function orderedLive(live: readonly KubeObject[], sealed: SealedValues): unknown[] {
  return [...live]
    .sort((a, b) => compare(a.kind, b.kind) || compare(a.metadata.name, b.metadata.name))
    .map((o) => {
      const { status: _status, ...rest } = o;
      const metadata: Record<string, unknown> = { ...o.metadata };
      for (const k of SERVER_METADATA) delete metadata[k];
      if (o.metadata.annotations?.[LAST_APPLIED] !== undefined) {
        const { [LAST_APPLIED]: _last, ...annotations } = o.metadata.annotations;
        if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
        else delete metadata.annotations;
      }
      return sortedKeys(sealLive({ ...rest, metadata }, sealed));
    });
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A deep copy with object keys in code-point order (arrays keep theirs). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort(compare)
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}
