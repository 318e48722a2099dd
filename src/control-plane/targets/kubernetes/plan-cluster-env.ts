/**
 * Planning an env whose target is kubernetes (the planner sweep calls it): choose the cluster agent
 * — the env's own, else the one the deploy asked for (`target.host`), else the team's first connected
 * cluster agent — read its facts (from its hello) and the env's live objects (`kube.live`, a read:
 * nothing touches the cluster before approval), then plan: deterministically (plan/), or through the
 * project's LLM endpoint (llm/, its output validated by the same rules). The plan is made for that
 * cluster, so the env is placed on it when the plan is recorded.
 */
import type { HostFacts } from '../../../contracts/domain.js';
import type { ClusterFacts } from '../../../contracts/kubernetes.js';
import type { Spec } from '../../../contracts/spec.js';
import type { AgentGateway } from '../../gateway/agent-gateway.js';
import type { Plan } from '../../lifecycle/planner.js';
import type { Db } from '../../store/db.js';
import type { EnvRow } from '../../store/rows.js';
import { askAgent } from '../../telemetry/agent-requests.js';
import { FinalPlanError } from '../../lifecycle/planner.js';
import type { ProjectPlanner } from '../../store/rows.js';
import { planWithLlm } from './llm/llm-planner.js';
import { planKubernetes, validateManifests } from './plan/index.js';
import { labelValue } from './plan/kube-names.js';

interface ClusterRow {
  readonly id: string;
  readonly name: string;
  readonly facts: HostFacts | null;
}

export interface ClusterPlanInput {
  readonly env: EnvRow;
  readonly spec: Spec;
  /** The deploy's `target.host`: a cluster agent's name or id. */
  readonly requested: string | null;
  readonly instructions: string;
  readonly replacesVersion: number | null;
}

const isCluster = (facts: HostFacts | null): facts is HostFacts & { cluster: ClusterFacts } => Boolean(facts?.runtimes.includes('kubernetes') && facts.cluster);

/** The cluster agent the env is planned for; throws a message the env's `last_error` can show. */
export async function chooseCluster(db: Db, agents: AgentGateway, env: EnvRow, requested: string | null): Promise<ClusterRow & { facts: HostFacts & { cluster: ClusterFacts } }> {
  const pick = async (where: string, params: unknown[]) =>
    db.query<ClusterRow>(`select id, name, facts from hosts where team = $1 and status <> 'removed' and ${where}`, [env.team, ...params]);
  if (env.host) {
    const row = (await pick('id = $2', [env.host]))[0];
    if (!row || !isCluster(row.facts)) throw new Error(`the env's host ${env.host} is not a Kubernetes cluster agent`);
    return row as ClusterRow & { facts: HostFacts & { cluster: ClusterFacts } };
  }
  if (requested) {
    const row = (await pick('(id = $2 or name = $2)', [requested]))[0];
    if (!row) throw new Error(`no cluster agent "${requested}" in this team`);
    if (!isCluster(row.facts)) throw new Error(`host ${row.name} is not a Kubernetes cluster agent (start one with denv agent --kubernetes)`);
    return row as ClusterRow & { facts: HostFacts & { cluster: ClusterFacts } };
  }
  const connected = await agents.connectedHosts(env.team);
  const rows = await pick('id = any($2)', [connected]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const id of connected) {
    const row = byId.get(id);
    if (row && isCluster(row.facts)) return row as ClusterRow & { facts: HostFacts & { cluster: ClusterFacts } };
  }
  throw new Error('no Kubernetes cluster agent is connected to this team (start one with denv agent --kubernetes)');
}

/** The plan, and the cluster agent it was made for. */
export async function planClusterEnv(db: Db, agents: AgentGateway, input: ClusterPlanInput): Promise<{ plan: Plan; host: string }> {
  const cluster = await chooseCluster(db, agents, input.env, input.requested);
  // Env names are unique within a project only: the cluster knows the env as `<project>-<env>`, so
  // two projects' `production` envs in one namespace neither collide nor see each other's objects.
  const project = (await db.query<{ name: string; planner: ProjectPlanner | null }>('select name, planner from projects where id = $1', [input.env.project]))[0]!;
  const clusterName = `${project.name}-${input.env.name}`;
  const live = await askAgent(agents, cluster.id, 'kube.live', { env: input.env.id, label: labelValue(clusterName) }, 15_000).catch((err: unknown) => {
    throw new Error(`cluster agent ${cluster.name} did not give the env's live objects: ${err instanceof Error ? err.message : String(err)}`);
  });
  const planInput = { spec: input.spec, envName: clusterName, facts: cluster.facts.cluster, live: live.objects, instructions: input.instructions, replacesVersion: input.replacesVersion };
  const llm = project.planner;
  if (llm) {
    const validate = (docs: readonly unknown[]) => validateManifests(docs, { namespace: cluster.facts.cluster.namespace, envName: clusterName });
    // planWithLlm already retried with the validation errors: its failure is final (no sweep retry).
    const plan = await planWithLlm(planInput, { endpoint: { url: llm.url, key: llm.key, model: llm.model }, validate }).catch((err: unknown) => {
      throw new FinalPlanError(err instanceof Error ? err.message : String(err));
    });
    // The summary is shown to every reader of the env; the artifact is masked when shown (api/mask.ts).
    return { plan: { planner: 'llm', summary: maskValues(plan.summary, input.spec), artifact: plan.artifact, namespace: cluster.facts.cluster.namespace }, host: cluster.id };
  }
  const plan = planKubernetes(planInput);
  return { plan: { planner: 'kubernetes', summary: plan.summary, artifact: plan.artifact, namespace: cluster.facts.cluster.namespace }, host: cluster.id };
}

/** `text` with every environment value of the spec's services (4 characters or more) shown as ***:
 *  a model may quote them in its summary. */
export function maskValues(text: string, spec: Spec): string {
  const values = [...new Set(Object.values(spec.services).flatMap((s) => Object.values(s.environment)))].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
  return values.reduce((t, v) => t.split(v).join('***'), text);
}
