import { emptyBody, replanBody, revealListQuery } from '../../contracts/api.js';
import { performAction } from '../lifecycle/actions.js';
import { toPlan, type PlanRow } from '../lifecycle/plans.js';
import type { UserAction } from '../lifecycle/state-machine.js';
import { toDeployment, toEnv } from '../store/rows.js';
import { findEnv } from './lookup.js';
import { maskArtifact, revealAllowed } from './mask.js';
import { route, type ApiContext, type Call } from './route.js';

/** Run a lifecycle action on `envId`; answers `{deployment, env}` (deployment null when the
 *  action needs no work on a host). Also `DELETE /v1/envs/{env}` (teardown). */
export async function runAction({ db, bus }: Pick<ApiContext, 'db' | 'bus'>, team: string, envId: string, action: UserAction, guidance?: string) {
  const out = await db.tx((tx) => performAction(tx, team, envId, action, { guidance }));
  bus.emit('kick');
  if (out.deployment) bus.emit('deployment', out.deployment.id);
  return { deployment: out.deployment ? toDeployment(out.deployment) : null, env: toEnv(out.env) };
}

const act = (ctx: ApiContext, call: Call<{ guidance?: string } | undefined, unknown>, action: UserAction) =>
  runAction(ctx, call.auth.team, call.params.env!, action, call.body?.guidance);

const simple = (action: Exclude<UserAction, 'replan' | 'delete_record'>, summary: string) =>
  route({ method: 'POST', url: `/v1/envs/:env/${action}`, summary, body: emptyBody.optional(), status: 202, handler: (ctx, call) => act(ctx, call as never, action) });

export const envLifecycleRoutes = [
  simple('approve', 'Approve the plan awaiting approval (awaiting_approval → deploying / upgrading)'),
  route({
    method: 'POST', url: '/v1/envs/:env/replan', summary: 'Plan again, with optional guidance appended to the instructions (→ planning)', body: replanBody.optional(), status: 202,
    handler: (ctx, call) => act(ctx, call, 'replan'),
  }),
  simple('stop', 'Scale the env to zero, keeping its record, plan and data (→ stopping → stopped)'),
  simple('start', 'Re-apply the stored plan of a stopped env (stopped → deploying → running)'),
  simple('teardown', 'Delete what the plan created on the host (→ tearing_down → torn_down)'),
  simple('separate', 'Stop managing the env; the workload keeps running (→ separated)'),
  route({
    method: 'DELETE', url: '/v1/envs/:env/record', summary: 'Delete the env record (only from torn_down, separated, failed)',
    async handler(ctx, call) {
      await ctx.db.tx((tx) => performAction(tx, call.auth.team, call.params.env!, 'delete_record'));
      return { deleted: call.params.env };
    },
  }),
  route({
    method: 'GET', url: '/v1/envs/:env/plans', summary: "The env's plans, newest first: summary, rendered artifact (secret values shown as *** unless reveal=true with an admin-scoped token), guidance, approval", query: revealListQuery,
    async handler({ db }, { auth, params, query }) {
      const env = await findEnv(db, auth.team, params.env!);
      const reveal = revealAllowed(auth, query.reveal);
      const rows = await db.query<PlanRow>('select * from env_plans where env = $1 order by created_at desc, id desc limit $2', [env.id, query.limit]);
      return { items: rows.map((r) => (reveal ? toPlan(r) : { ...toPlan(r), artifact: maskArtifact(r.artifact) })), next: null };
    },
  }),
];
