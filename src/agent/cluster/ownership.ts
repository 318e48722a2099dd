/**
 * Which env owns an object in the cluster: the cluster agent stamps `denv.dev/env-id: <env id>` on
 * every object it applies, and changes or deletes an object only when it carries that env's id — so
 * an env never takes over, or deletes, an object of another env (two projects whose `<project>-<env>`
 * names meet, an env re-deployed under the name of one that was separated, a plan naming an object
 * that someone else made). Pure.
 */
import type { KubeObject, KubeRef } from '../../contracts/kubernetes.js';

export const LABEL_ENV_ID = 'denv.dev/env-id';

export const ownerOf = (o: KubeObject): string | null => o.metadata.labels?.[LABEL_ENV_ID] ?? null;

/** `manifests` with the env's id among each object's labels. */
export function stamped(manifests: readonly KubeObject[], env: string): KubeObject[] {
  return manifests.map((m) => ({ ...m, metadata: { ...m.metadata, labels: { ...(m.metadata.labels ?? {}), [LABEL_ENV_ID]: env } } }));
}

export const refOf = (o: KubeObject): KubeRef => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name });

/** Why `env` may not change `live`, or null when it owns it. */
export function notOwned(live: KubeObject, env: string): string | null {
  const owner = ownerOf(live);
  if (owner === env) return null;
  const whose = owner ? `env ${owner}` : 'no denv env (it was made by someone else)';
  return `${live.kind} ${live.metadata.name} belongs to ${whose}: denv does not change or delete it`;
}
