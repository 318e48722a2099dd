/**
 * The manifests a cluster env's deployments apply: the plan approved for a deploy (env_plans),
 * parsed back from its artifact. Pure reads; a plan's artifact is the planner's validated YAML.
 */
import type { KubeObject, KubeRef } from '../../../contracts/kubernetes.js';
import type { Spec } from '../../../contracts/spec.js';
import { approvedArtifact } from '../../lifecycle/plans.js';
import type { Db } from '../../store/db.js';
import { parseManifestsYaml, refsOf } from './plan/index.js';

/** The manifests of the plan approved for deploy `deployment`; null when it has none. */
export async function planManifests(db: Db, deployment: string): Promise<KubeObject[] | null> {
  const artifact = await approvedArtifact(db, deployment);
  return artifact === null ? null : (parseManifestsYaml(artifact) as KubeObject[]);
}

/** The namespace the plan approved for deploy `deployment` was made for: what its commands name
 *  (`kube.apply` / `kube.delete` `namespace`), so an agent working elsewhere refuses them. Null for
 *  a plan made before plans recorded it (the agent's own namespace then). */
export async function planNamespace(db: Db, deployment: string): Promise<string | null> {
  const rows = await db.query<{ namespace: string | null }>("select namespace from env_plans where deployment = $1 and status = 'approved' order by created_at desc limit 1", [deployment]);
  return rows[0]?.namespace ?? null;
}

/** The deploy that created `version` (its plan is the version's). */
export async function versionDeployment(db: Db, version: string): Promise<string | null> {
  return (await db.query<{ deployment: string | null }>('select deployment from versions where id = $1', [version]))[0]?.deployment ?? null;
}

/** The manifests of `version`: the plan of the deploy that created it. */
export async function versionManifests(db: Db, version: string): Promise<KubeObject[] | null> {
  const deployment = await versionDeployment(db, version);
  return deployment ? planManifests(db, deployment) : null;
}

/** The namespace of `version`'s plan (planNamespace). */
export async function versionNamespace(db: Db, version: string): Promise<string | null> {
  const deployment = await versionDeployment(db, version);
  return deployment ? planNamespace(db, deployment) : null;
}

/** `{namespace}` for a command's payload when the plan recorded one. */
export const inNamespace = (namespace: string | null): { namespace?: string } => (namespace ? { namespace } : {});

/** Every object an approved plan of the env named, once each, grouped by the namespace its plan was
 *  made for: what teardown deletes (a failed first deploy's objects included) — and nothing else. */
export async function envPlanRefs(db: Db, env: string): Promise<{ namespace: string | null; refs: KubeRef[] }[]> {
  const rows = await db.query<{ artifact: string; namespace: string | null }>("select artifact, namespace from env_plans where env = $1 and status = 'approved' order by created_at", [env]);
  const groups = new Map<string | null, Map<string, KubeRef>>();
  for (const r of rows) {
    const seen = groups.get(r.namespace) ?? new Map<string, KubeRef>();
    groups.set(r.namespace, seen);
    for (const ref of refsOf(parseManifestsYaml(r.artifact) as KubeObject[])) seen.set(`${ref.apiVersion}/${ref.kind}/${ref.name}`, ref);
  }
  return [...groups].map(([namespace, seen]) => ({ namespace, refs: [...seen.values()] }));
}

/** Each image service's image: patched into the plan at apply (an LLM plan may name another). */
export function imagesOf(spec: Spec): Record<string, string> {
  return Object.fromEntries(Object.entries(spec.services).flatMap(([name, s]) => (s.image ? [[name, s.image]] : [])));
}

export const deploymentsOf = (manifests: readonly KubeObject[]) => manifests.filter((m) => m.kind === 'Deployment').map((m) => m.metadata.name);
export const ingressesOf = (manifests: readonly KubeObject[]) => manifests.filter((m) => m.kind === 'Ingress').map((m) => m.metadata.name);
