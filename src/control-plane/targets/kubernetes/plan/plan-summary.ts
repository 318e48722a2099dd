/**
 * The plan in plain English, a few lines a person reads before approving: what is deployed or
 * upgraded, each service's image, replicas, ports and probe, the claims, the Ingress hosts (with
 * TLS, or why not), what evolve kept from the cluster, what of the spec a Kubernetes target does
 * not carry over, and the instructions quoted. Read from the final manifests, so it says what will
 * be applied (evolved names and replicas included).
 */
import { LABEL_SERVICE, type ClusterFacts, type KubeObject } from '../../../../contracts/kubernetes.js';
import type { ServiceSpec, Spec } from '../../../../contracts/spec-types.js';
import { needsSourceBuild } from '../../../../contracts/spec-service.js';
import { ingressClassOf, ingressTls } from './ingress-manifest.js';
import { labelValue } from './kube-names.js';

export interface SummaryInput {
  readonly spec: Spec;
  readonly envName: string;
  readonly facts: ClusterFacts;
  readonly manifests: readonly KubeObject[];
  readonly preserved: readonly string[];
  readonly leftBehind: readonly KubeObject[];
  readonly instructions: string;
  readonly replacesVersion: number | null;
}

/** Our own manifests, read loosely (their shape is the builders'). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rec = Record<string, any>;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function probeText(probe: Rec | undefined): string {
  if (!probe) return 'no probe (no port to check)';
  if (probe.httpGet) return `probe HTTP GET ${probe.httpGet.path} on port ${probe.httpGet.port}`;
  if (probe.exec) return `probe command ${(probe.exec.command as string[]).join(' ')}`;
  if (probe.tcpSocket) return `probe TCP connect to port ${probe.tcpSocket.port}`;
  return 'probe';
}

function serviceLine(service: string, deployment: Rec | undefined): string {
  if (!deployment) return `- ${service}: not planned`;
  const pod = deployment.spec.template.spec;
  const c = pod.containers[0];
  const ports = ((c.ports ?? []) as Rec[]).map((p) => `${p.containerPort}/${String(p.protocol).toLowerCase()}`);
  const claims = ((pod.volumes ?? []) as Rec[]).filter((v) => v.persistentVolumeClaim).map((v) => v.persistentVolumeClaim.claimName as string);
  const parts = [
    `image ${c.image}`,
    plural(deployment.spec.replicas, 'replica'),
    ports.length > 0 ? `${ports.length === 1 ? 'port' : 'ports'} ${ports.join(', ')}` : 'no ports',
    probeText(c.readinessProbe),
    `memory limit ${c.resources.limits.memory}${c.resources.limits.cpu ? `, CPU limit ${c.resources.limits.cpu}` : ''}`,
    ...(claims.length > 0 ? [`mounts ${claims.join(', ')} (updates stop the old pod first)`] : []),
  ];
  return `- ${service} (Deployment ${deployment.metadata.name}): ${parts.join('; ')}`;
}

/** What of a service's spec has no effect on Kubernetes. */
function notCarried(service: string, svc: ServiceSpec): string[] {
  const out: string[] = [];
  if (svc.user && !/^\d+(:\d+)?$/.test(svc.user)) out.push(`${service}: user "${svc.user}" (Kubernetes takes a numeric uid; the image's user runs)`);
  if (svc.restart === 'no' || svc.restart === 'on-failure') out.push(`${service}: restart "${svc.restart}" (a Deployment always restarts its container)`);
  if (svc.limits?.pids != null) out.push(`${service}: pids limit ${svc.limits.pids}`);
  if (svc.stop_signal && svc.stop_signal !== 'SIGTERM') out.push(`${service}: stop signal ${svc.stop_signal} (Kubernetes sends SIGTERM)`);
  if (svc.depends_on && Object.keys(svc.depends_on).length > 0) out.push(`${service}: depends_on ${Object.keys(svc.depends_on).join(', ')} (pods start together; the service must wait for them itself)`);
  return out;
}

function ingressLines(input: SummaryInput, ingresses: readonly Rec[]): string[] {
  const withHosts = Object.entries(input.spec.services).filter(([, s]) => (s.edge?.hostnames.length ?? 0) > 0);
  if (withHosts.length === 0) return [];
  if (ingressClassOf(input.facts) === null) {
    return [`Ingress: none. The cluster reports no ingress class, so ${withHosts.map(([n, s]) => `${n} (${s.edge!.hostnames.join(', ')})`).join('; ')} ${withHosts.length === 1 ? 'is' : 'are'} reachable only inside the cluster.`];
  }
  return ingresses.map((ing) => {
    const service = withHosts.find(([n]) => labelValue(n) === ing.metadata.labels?.[LABEL_SERVICE]);
    const svc = service?.[1];
    const hosts = (ing.spec.rules as Rec[]).map((r) => r.host as string).join(', ');
    const tls = ing.spec.tls
      ? `TLS by cert-manager (ClusterIssuer letsencrypt, secret ${ing.spec.tls[0].secretName})`
      : svc && !ingressTls(svc, input.facts) && input.facts.cert_manager
        ? 'no TLS (x-denv.edge.tls is off)'
        : 'no TLS (cert-manager is not installed in the cluster)';
    return `Ingress ${ing.metadata.name}: ${hosts} (class ${ing.spec.ingressClassName}), ${tls}.`;
  });
}

export function planSummary(input: SummaryInput): string {
  const { spec, facts, manifests } = input;
  const ofKind = (kind: string): Rec[] => manifests.filter((m) => m.kind === kind) as Rec[];
  const deployments = ofKind('Deployment');
  const services = Object.keys(spec.services).sort();
  const lines: string[] = [
    input.replacesVersion === null
      ? `Deploy env ${input.envName} to namespace ${facts.namespace} (Kubernetes ${facts.version}): ${plural(services.length, 'service')}.`
      : `Upgrade env ${input.envName} from version ${input.replacesVersion} in namespace ${facts.namespace} (Kubernetes ${facts.version}): ${plural(services.length, 'service')}.`,
    ...services.map((s) => serviceLine(s, deployments.find((d) => d.metadata.labels?.[LABEL_SERVICE] === labelValue(s)))),
  ];
  const claims = ofKind('PersistentVolumeClaim');
  if (claims.length > 0) {
    const text = claims.map((c) => `${c.metadata.name} (${[c.spec.resources?.requests?.storage, ...(c.spec.accessModes ?? []), c.spec.storageClassName ? `class ${c.spec.storageClassName}` : null].filter(Boolean).join(', ')})`);
    lines.push(`Volumes: ${text.join('; ')}.`);
  }
  for (const volume of spec.volumes) {
    const users = services.filter((s) => spec.services[s]!.volumes.some((v) => v.source === volume));
    if (users.length > 1) lines.push(`Volume ${volume} is mounted by ${users.join(' and ')}: a ReadWriteOnce claim is shared only by pods on one node.`);
  }
  lines.push(...ingressLines(input, ofKind('Ingress')));
  if (input.preserved.length > 0) lines.push(`Kept from the cluster: ${input.preserved.join('; ')}.`);
  if (input.leftBehind.length > 0) lines.push(`Not in this plan, left as they are in the cluster: ${input.leftBehind.map((o) => `${o.kind} ${o.metadata.name}`).join(', ')}.`);
  const built = services.filter((s) => needsSourceBuild(s, spec.services[s]!));
  if (built.length > 0) lines.push(`Built from source: ${built.map((s) => `${s} (${spec.services[s]!.image})`).join(', ')}; the deploy must push the image where the cluster can pull it.`);
  const skipped = services.flatMap((s) => notCarried(s, spec.services[s]!));
  if (skipped.length > 0) lines.push(`Not carried over to Kubernetes: ${skipped.join('; ')}.`);
  const instructions = input.instructions.trim();
  lines.push(instructions === '' ? 'Instructions: none.' : `Instructions (quoted; the deterministic planner does not act on them):\n${instructions.split('\n').map((l) => `> ${l}`).join('\n')}`);
  return lines.join('\n');
}
