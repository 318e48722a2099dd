/** Plan rows (env_plans): the history of an env's plans, guidance included. */
import type { Db } from '../store/db.js';

export interface PlanRow {
  id: string; env: string; deployment: string | null; planner: string; summary: string; artifact: string;
  instructions: string; guidance: string | null; status: 'requested' | 'ready' | 'approved' | 'superseded' | 'failed';
  actor: string | null; created_at: unknown; approved_at: unknown;
}

export const toPlan = (r: PlanRow) => ({
  id: r.id, deployment: r.deployment, planner: r.planner, summary: r.summary, artifact: r.artifact,
  instructions: r.instructions, guidance: r.guidance, status: r.status, actor: r.actor,
  created_at: new Date(r.created_at as string).toISOString(),
  approved_at: r.approved_at ? new Date(r.approved_at as string).toISOString() : null,
});

/** The plan waiting for approval (or the one last approved), newest first. */
export async function latestPlan(db: Db, env: string, statuses: readonly PlanRow['status'][]): Promise<PlanRow | undefined> {
  const rows = await db.query<PlanRow>('select * from env_plans where env = $1 and status = any($2) order by created_at desc, id desc limit 1', [env, statuses]);
  return rows[0];
}

/** Every guidance given to this env's plans, oldest first: the planner's extra instructions. */
export async function guidanceHistory(db: Db, env: string): Promise<string[]> {
  const rows = await db.query<{ guidance: string }>("select guidance from env_plans where env = $1 and guidance is not null and guidance <> '' order by created_at, id", [env]);
  return rows.map((r) => r.guidance);
}

/** The artifact of the plan approved for deploy `deployment` (what a target applies), if any. */
export async function approvedArtifact(db: Db, deployment: string): Promise<string | null> {
  const rows = await db.query<{ artifact: string }>("select artifact from env_plans where deployment = $1 and status = 'approved' order by created_at desc limit 1", [deployment]);
  return rows[0]?.artifact ?? null;
}
