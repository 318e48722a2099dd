import type { PhaseContext } from '../operations/phase.js';

/** The newest approved plan whose deploy got as far as applying it (its prepare ran) and whose
 *  objects are still there: a deploy a stop superseded before it ran applied nothing, a failed
 *  first deploy's verdict removed what it applied (evidence `removed`), and stopping must not
 *  create their objects. */
export async function lastAppliedPlan(ctx: Pick<PhaseContext, 'db'>, env: string): Promise<{ deployment: string } | undefined> {
  const rows = await ctx.db.query<{ deployment: string; phases: { name: string; status: string; evidence: Record<string, unknown> | null }[] }>(
    "select p.deployment, d.phases from env_plans p join deployments d on d.id = p.deployment where p.env = $1 and p.status = 'approved' order by p.created_at desc",
    [env],
  );
  const last = rows.find((r) => r.phases.some((ph) => ph.name === 'prepare' && (ph.status === 'ok' || ph.status === 'failed')));
  const removed = last?.phases.some((ph) => ph.name === 'verdict' && ph.evidence !== null && 'removed' in ph.evidence);
  return removed ? undefined : last;
}
