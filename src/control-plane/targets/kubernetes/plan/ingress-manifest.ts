/**
 * A `networking.k8s.io/v1` Ingress for a service with edge hostnames, routing every path of each
 * host to the service's edge port (`x-denv.edge.port`, else its first port) on its Service.
 *
 * Only when the cluster has an ingress class (its default, else the first it reports): without
 * one nothing would serve the Ingress, and the plan says so instead. TLS only when cert-manager is
 * installed and the spec does not turn TLS off: a `tls` entry naming the secret
 * `<env>-<service>-tls` that cert-manager fills through the `letsencrypt` ClusterIssuer.
 */
import type { ClusterFacts, KubeObject } from '../../../../contracts/kubernetes.js';
import type { ServiceSpec } from '../../../../contracts/spec-types.js';
import { serviceLabels } from './plan-labels.js';
import type { PlanNames } from './plan-names.js';
import { servicePorts } from './service-ports.js';

export const CLUSTER_ISSUER_ANNOTATION = 'cert-manager.io/cluster-issuer';
export const CLUSTER_ISSUER = 'letsencrypt';

/** The class an Ingress uses: the cluster's default, else the first; null when it has none. */
export function ingressClassOf(facts: ClusterFacts): string | null {
  return facts.default_ingress_class ?? facts.ingress_classes[0] ?? null;
}

/** Whether `svc`'s Ingress gets a certificate. */
export function ingressTls(svc: ServiceSpec, facts: ClusterFacts): boolean {
  return facts.cert_manager && svc.edge?.tls !== 'off';
}

/** null when the service has no hostnames or the cluster no ingress class; throws when there is no port to route to. */
export function ingressManifest(envName: string, service: string, svc: ServiceSpec, names: PlanNames, facts: ClusterFacts): KubeObject | null {
  const hosts = svc.edge?.hostnames ?? [];
  const className = ingressClassOf(facts);
  if (hosts.length === 0 || className === null) return null;
  const port = svc.edge?.port ?? servicePorts(svc)[0]?.port;
  if (port === undefined) throw new Error(`service ${service} has edge hostnames but no port to route to: list the port in ports or expose, or set x-denv.edge.port`);
  const own = names.services[service]!;
  const tls = ingressTls(svc, facts);
  const backend = { service: { name: own.service, port: { number: port } } };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: own.ingress, labels: serviceLabels(envName, service), ...(tls ? { annotations: { [CLUSTER_ISSUER_ANNOTATION]: CLUSTER_ISSUER } } : {}) },
    spec: {
      ingressClassName: className,
      ...(tls ? { tls: [{ hosts: [...hosts], secretName: own.tlsSecret }] } : {}),
      rules: hosts.map((host) => ({ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: structuredClone(backend) }] } })),
    },
  };
}
