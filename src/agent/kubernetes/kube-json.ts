/**
 * client-node 1.x passes every object of a known kind through its generated models: on the way out
 * a field the model does not know is silently dropped (a misspelt `spec.replica` never reaches the
 * API server), on the way in JSON becomes class instances with Date fields. These two functions
 * make both visible: `droppedFields` lists what the client would drop (apply refuses such a
 * manifest), `plainObject` turns a model back into the API's JSON for reads.
 * The serializer is not exported from the package root, hence the deep import (1.4.0's layout).
 */
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import type { KubeObject } from '../../contracts/kubernetes.js';

/** client-node's model name for an apiVersion and kind: `apps/v1` `Deployment` → `V1Deployment`. */
function modelType(apiVersion: string, kind: string): string {
  const version = apiVersion.split('/').pop() ?? apiVersion;
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

const toJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));

/** A model (or plain object) as the API's JSON, with its apiVersion and kind (list items arrive without them). */
export function plainObject(model: object, apiVersion: string, kind: string): KubeObject {
  const json = toJson(ObjectSerializer.serialize(model, modelType(apiVersion, kind))) as Record<string, unknown>;
  return { ...json, apiVersion, kind } as KubeObject;
}

/** Paths (`spec.template.spec.containers[0].resource`) of the manifest's fields that client-node would not send. */
export function droppedFields(manifest: KubeObject): string[] {
  const sent = toJson(ObjectSerializer.serialize(structuredClone(manifest), modelType(manifest.apiVersion, manifest.kind)));
  return missing(manifest, sent, '');
}

function missing(given: unknown, sent: unknown, path: string): string[] {
  if (Array.isArray(given)) return given.flatMap((x, i) => missing(x, Array.isArray(sent) ? sent[i] : undefined, `${path}[${i}]`));
  if (given === null || typeof given !== 'object') return [];
  return Object.entries(given).flatMap(([k, v]) => {
    const at = path ? `${path}.${k}` : k;
    if (v === undefined) return [];
    const out = sent !== null && typeof sent === 'object' && !Array.isArray(sent) ? (sent as Record<string, unknown>) : null;
    return out && k in out ? missing(v, out[k], at) : [at];
  });
}
