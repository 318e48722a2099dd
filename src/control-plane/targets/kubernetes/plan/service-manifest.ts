/**
 * A `v1` Service (ClusterIP) for a service with ports: how its siblings reach it
 * (`DENV_<S>_HOST` is this object's name) and what an Ingress routes to. Ports are named
 * (`tcp-8080`) as on the container; a service without ports gets none (the caller skips it).
 */
import type { KubeObject } from '../../../../contracts/kubernetes.js';
import type { ServiceSpec } from '../../../../contracts/spec-types.js';
import { portName } from './kube-names.js';
import { serviceLabels } from './plan-labels.js';
import type { PlanNames } from './plan-names.js';
import { servicePorts } from './service-ports.js';

export function serviceManifest(envName: string, service: string, svc: ServiceSpec, names: PlanNames): KubeObject | null {
  const ports = servicePorts(svc);
  if (ports.length === 0) return null;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: names.services[service]!.service, labels: serviceLabels(envName, service) },
    spec: {
      type: 'ClusterIP',
      selector: serviceLabels(envName, service),
      ports: ports.map((p) => ({ name: portName(p.protocol, p.port), port: p.port, targetPort: p.port, protocol: p.protocol.toUpperCase() })),
    },
  };
}
