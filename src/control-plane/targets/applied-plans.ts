import type { PhaseContext } from '../operations/phase.js';

/** The newest approved plan whose deploy got as far as applying it (its prepare ran): a deploy a
 *  stop superseded before it ran applied nothing, and stopping must not create its objects. */
export async function lastAppliedPlan(ctx: Pick<PhaseContext, 'db'>, env: string): Promise<{ deployment: string } | undefined> {
  const rows = await ctx.db.query<{ deployment: string; phases: { name: string; status: string }[] }>(
    "select p.deployment, d.phases from env_plans p join deployments d on d.id = p.deployment where p.env = $1 and p.status = 'approved' order by p.created_at desc",
    [env],
  );
  return rows.find((r) => r.phases.some((ph) => ph.name === 'prepare' && (ph.status === 'ok' || ph.status === 'failed')));
}
