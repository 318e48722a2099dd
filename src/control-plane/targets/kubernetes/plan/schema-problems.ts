/**
 * A plan document checked against the Kubernetes OpenAPI schemas (kubernetes-models: precompiled
 * ajv validators per kind). The schemas are lax — unknown fields pass, `selector: {}` passes,
 * required lists are few — so rule-problems.ts adds the API server's checks that matter.
 */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import type { PlanKind } from '../../../../contracts/kubernetes.js';

interface KindSchema {
  readonly apiVersion: string;
  /** Throws kubernetes-models' ValidationError (ajv's `errors`) when the document does not fit. */
  readonly validate: (doc: unknown) => void;
}

/** The apiVersion and schema of every kind a plan may hold (a new PLAN_KINDS entry fails the build until added). */
export const KIND_SCHEMAS = {
  Deployment: { apiVersion: 'apps/v1', validate: (doc) => new Deployment(doc as never).validate() },
  Service: { apiVersion: 'v1', validate: (doc) => new Service(doc as never).validate() },
  PersistentVolumeClaim: { apiVersion: 'v1', validate: (doc) => new PersistentVolumeClaim(doc as never).validate() },
  Ingress: { apiVersion: 'networking.k8s.io/v1', validate: (doc) => new Ingress(doc as never).validate() },
  ConfigMap: { apiVersion: 'v1', validate: (doc) => new ConfigMap(doc as never).validate() },
} as const satisfies Record<PlanKind, KindSchema>;

interface AjvError {
  readonly instancePath?: string;
  readonly keyword?: string;
  readonly params?: Record<string, unknown>;
  readonly message?: string;
}

/** `/spec/template/spec/containers/0/image` → `spec.template.spec.containers.0.image`. */
function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

function describeError(e: AjvError): string {
  const at = dotted(e.instancePath ?? '');
  if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') return `${at === '' ? '' : `${at}.`}${e.params.missingProperty}: required`;
  if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) return `${at || '(document)'}: expected one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  return `${at || '(document)'}: ${e.message ?? 'invalid'}`;
}

/** The schema's problems with `doc` (of `kind`), each `path: message`; [] when it fits. */
export function schemaProblems(kind: PlanKind, doc: unknown): string[] {
  try {
    KIND_SCHEMAS[kind].validate(doc);
    return [];
  } catch (err) {
    const errors = (err as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) return [`(document): ${(err as Error).message}`];
    return [...new Set((errors as AjvError[]).map(describeError))];
  }
}
