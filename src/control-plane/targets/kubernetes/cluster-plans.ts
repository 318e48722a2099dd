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

/** The manifests of `version`: the plan of the deploy that created it. */
export async function versionManifests(db: Db, version: string): Promise<KubeObject[] | null> {
  const rows = await db.query<{ deployment: string | null }>('select deployment from versions where id = $1', [version]);
  return rows[0]?.deployment ? planManifests(db, rows[0].deployment) : null;
}

/** Every object an approved plan of the env named, once each: what teardown deletes (a failed first
 *  deploy's objects included) — and nothing else in the namespace. */
export async function envPlanRefs(db: Db, env: string): Promise<KubeRef[]> {
  const rows = await db.query<{ artifact: string }>("select artifact from env_plans where env = $1 and status = 'approved' order by created_at", [env]);
  const seen = new Map<string, KubeRef>();
  for (const r of rows) for (const ref of refsOf(parseManifestsYaml(r.artifact) as KubeObject[])) seen.set(`${ref.apiVersion}/${ref.kind}/${ref.name}`, ref);
  return [...seen.values()];
}

/** Each image service's image: patched into the plan at apply (an LLM plan may name another). */
export function imagesOf(spec: Spec): Record<string, string> {
  return Object.fromEntries(Object.entries(spec.services).flatMap(([name, s]) => (s.image ? [[name, s.image]] : [])));
}

export const deploymentsOf = (manifests: readonly KubeObject[]) => manifests.filter((m) => m.kind === 'Deployment').map((m) => m.metadata.name);
export const ingressesOf = (manifests: readonly KubeObject[]) => manifests.filter((m) => m.kind === 'Ingress').map((m) => m.metadata.name);
