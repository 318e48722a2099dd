/**
 * One service as an `apps/v1` Deployment (pure; tested on its exact output).
 *
 * - Compose `entrypoint` → `command`, Compose `command` → `args` (Kubernetes' names for the same two).
 * - Strategy: `Recreate` when the pod mounts a PVC (a ReadWriteOnce claim cannot be mounted by two
 *   pods on different nodes, so a rolling update could wait forever) or the spec asks stop-first;
 *   otherwise a start-first rolling update (the new pod is ready before the old one goes).
 * - `enableServiceLinks: false`: Kubernetes would otherwise add `<SERVICE>_PORT=tcp://…` variables
 *   for every Service of the namespace, which clash with apps reading `REDIS_PORT` and the like.
 * - `automountServiceAccountToken: false`: an app has no business with the cluster's API.
 * - `user:` becomes runAsUser/runAsGroup when numeric, and the pod's fsGroup (its group, else its
 *   uid) when it mounts a claim, so a fresh volume is writable by that user; a user *name* cannot
 *   be resolved by Kubernetes and is left to the image (the summary says so).
 */
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import type { HealthSpec, ServiceSpec } from '../../../../contracts/spec-types.js';
import { containerEnv, fillReferences, kubeLiteral } from './container-env.js';
import { containerProbes } from './container-probes.js';
import { containerResources } from './container-resources.js';
import { portName } from './kube-names.js';
import { serviceLabels } from './plan-labels.js';
import type { PlanNames } from './plan-names.js';
import { servicePorts } from './service-ports.js';

export interface DeploymentInput {
  readonly envName: string;
  readonly service: string;
  readonly svc: ServiceSpec;
  readonly names: PlanNames;
  /** denv's variables for this container (container-env.ts `ownedVariables`). */
  readonly owned: Readonly<Record<string, string>>;
  readonly replicas: number;
}

const NUMERIC_USER = /^(\d+)(?::(\d+))?$/;

function filledHealth(health: HealthSpec, owned: Readonly<Record<string, string>>): HealthSpec {
  return health.kind === 'command' ? { ...health, test: health.test.map((w) => fillReferences(w, owned)) } : health;
}

/** Throws (naming the service) when its health check cannot be probed. */
export function deploymentManifest(input: DeploymentInput): KubeObject {
  const { svc, service, owned } = input;
  if (svc.image === null) throw new Error(`service ${service} has no image: a Kubernetes target runs container images only`);
  const names = input.names.services[service]!;
  const labels = serviceLabels(input.envName, service);
  const ports = servicePorts(svc);
  let probes;
  try {
    probes = containerProbes(filledHealth(svc.health, owned), ports.filter((p) => p.protocol === 'tcp').map((p) => p.port));
  } catch (err) {
    throw new Error(`service ${service}: ${(err as Error).message}`);
  }
  const argv = (words: readonly string[] | null) => words?.map((w) => kubeLiteral(fillReferences(w, owned)));

  const claims = [...new Set(svc.volumes.map((v) => v.source))];
  const tmpfs = svc.tmpfs ?? [];
  const volumes = [
    ...claims.map((source) => ({ name: input.names.volumes[source]!.podVolume, persistentVolumeClaim: { claimName: input.names.volumes[source]!.claim } })),
    ...tmpfs.map((_, i) => ({ name: `tmpfs-${i}`, emptyDir: { medium: 'Memory' } })),
  ];
  const volumeMounts = [
    ...svc.volumes.map((v) => ({ name: input.names.volumes[v.source]!.podVolume, mountPath: v.target, ...(v.read_only ? { readOnly: true } : {}) })),
    ...tmpfs.map((path, i) => ({ name: `tmpfs-${i}`, mountPath: path })),
  ];
  const user = NUMERIC_USER.exec(svc.user ?? '');
  const securityContext = {
    ...(user ? { runAsUser: Number(user[1]) } : {}),
    ...(user?.[2] !== undefined ? { runAsGroup: Number(user[2]) } : {}),
    ...(svc.read_only ? { readOnlyRootFilesystem: true } : {}),
  };
  const env = containerEnv(svc, owned);
  const command = argv(svc.entrypoint);
  const args = argv(svc.command);

  const container = {
    name: names.container,
    image: svc.image,
    ...(command ? { command } : {}),
    ...(args ? { args } : {}),
    ...(svc.working_dir ? { workingDir: svc.working_dir } : {}),
    ...(env.length > 0 ? { env } : {}),
    ...(ports.length > 0 ? { ports: ports.map((p) => ({ name: portName(p.protocol, p.port), containerPort: p.port, protocol: p.protocol.toUpperCase() })) } : {}),
    ...probes,
    resources: containerResources(svc.limits),
    ...(volumeMounts.length > 0 ? { volumeMounts } : {}),
    ...(Object.keys(securityContext).length > 0 ? { securityContext } : {}),
  };
  const recreate = claims.length > 0 || svc.update_order === 'stop-first';
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.deployment, labels: { ...labels } },
    spec: {
      replicas: input.replicas,
      selector: { matchLabels: { ...labels } },
      strategy: recreate ? { type: 'Recreate' } : { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          enableServiceLinks: false,
          automountServiceAccountToken: false,
          ...(user && claims.length > 0 ? { securityContext: { fsGroup: Number(user[2] ?? user[1]) } } : {}),
          ...(svc.stop_grace_ms != null ? { terminationGracePeriodSeconds: Math.ceil(svc.stop_grace_ms / 1000) } : {}),
          containers: [container],
          ...(volumes.length > 0 ? { volumes } : {}),
        },
      },
    },
  };
}
