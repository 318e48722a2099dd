/**
 * The deterministic Kubernetes planner (DESIGN §9, seed 002): a Spec and the cluster's facts →
 * the manifests an agent applies, their YAML artifact and a summary a person approves. Pure: the
 * same input gives a byte-identical artifact (no clock, no randomness; objects in a fixed order:
 * claims, then per kind Deployments, Services, Ingresses, each by service name).
 *
 * On an env already running (`live` not empty) the fresh plan is evolved onto the live objects
 * (evolve-manifests.ts): names, scaled replicas, others' labels and annotations, claims kept.
 *
 * Throws an Error with a message for the user when the spec cannot run on Kubernetes (a service
 * without an image, files the plan cannot carry, an http check or edge hostnames without a port).
 */
import type { ClusterFacts, KubeObject } from '../../../../contracts/kubernetes.js';
import type { Spec } from '../../../../contracts/spec-types.js';
import { ownedVariables } from './container-env.js';
import { deploymentManifest } from './deployment-manifest.js';
import { evolveManifests } from './evolve-manifests.js';
import { ingressManifest } from './ingress-manifest.js';
import { manifestsYaml } from './manifests-yaml.js';
import { planNames, usedVolumes } from './plan-names.js';
import { planSummary } from './plan-summary.js';
import { pvcManifest } from './pvc-manifest.js';
import { serviceManifest } from './service-manifest.js';

export interface KubePlanInput {
  readonly spec: Spec;
  /** denv's env name (may hold characters Kubernetes names refuse: kube-names.ts sanitises). */
  readonly envName: string;
  /** `facts.namespace` is where everything goes (the agent applies there; objects carry no namespace). */
  readonly facts: ClusterFacts;
  /** The env's objects now in the cluster (labelled `denv.dev/env=<env>`); [] on a first deploy. */
  readonly live: readonly KubeObject[];
  /** Free text from the user; only quoted in the summary. */
  readonly instructions: string;
  readonly replacesVersion: number | null;
}

export interface KubePlan {
  readonly manifests: readonly KubeObject[];
  readonly summary: string;
  /** The manifests as multi-document YAML. */
  readonly artifact: string;
}

/** Every Deployment starts with one pod: the spec refuses `deploy.replicas` other than 1 (spec-service.ts). */
const REPLICAS = 1;

/** What a service needs that a plan cannot carry without putting file contents into the artifact a person reads. */
function refuseFiles(service: string, files: { secrets: number; configs: number; binds: number }): void {
  const kinds = [files.secrets > 0 ? 'secrets' : null, files.configs > 0 ? 'configs' : null, files.binds > 0 ? 'bind mounts' : null].filter(Boolean);
  if (kinds.length > 0) throw new Error(`service ${service} uses ${kinds.join(', ')}: a Kubernetes target cannot carry files yet; put them in the image or pass them as environment variables`);
}

export function planKubernetes(input: KubePlanInput): KubePlan {
  const { spec, envName, facts, live } = input;
  const services = Object.keys(spec.services).sort();
  if (services.length === 0) throw new Error('the spec has no services: nothing to run on Kubernetes');
  for (const service of services) {
    const svc = spec.services[service]!;
    if (svc.image === null) throw new Error(`service ${service} has no image: a Kubernetes target runs container images only`);
    refuseFiles(service, { secrets: svc.secrets?.length ?? 0, configs: svc.configs?.length ?? 0, binds: svc.binds?.length ?? 0 });
  }
  const names = planNames(spec, envName, live);
  const claims = usedVolumes(spec).map((volume) => pvcManifest(envName, volume, names, facts));
  const deployments = services.map((service) =>
    deploymentManifest({ envName, service, svc: spec.services[service]!, names, owned: ownedVariables(spec, names, envName, service), replicas: REPLICAS }),
  );
  const kubeServices = services.flatMap((service) => serviceManifest(envName, service, spec.services[service]!, names) ?? []);
  const ingresses = services.flatMap((service) => ingressManifest(envName, service, spec.services[service]!, names, facts) ?? []);
  const evolved = evolveManifests([...claims, ...deployments, ...kubeServices, ...ingresses], live);
  const summary = planSummary({ spec, envName, facts, manifests: evolved.manifests, preserved: [...names.kept, ...evolved.preserved], leftBehind: evolved.leftBehind, instructions: input.instructions, replacesVersion: input.replacesVersion });
  return { manifests: evolved.manifests, summary, artifact: manifestsYaml(evolved.manifests) };
}
