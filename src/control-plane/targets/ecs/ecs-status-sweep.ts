/**
 * Live status of aws_ecs envs (seed 002: "for AWS it is assembled from ECS task/service state"): the
 * control plane reads each running or degraded env's service and tasks and stores them as the env's
 * live status — workloads in the shape agents send, so the monitor flips running ⇄ degraded from it
 * as for any env — and its endpoints (each running task's public IP). One env failing to answer is
 * logged and skipped; the next pass tries again.
 */
import { messageOf } from '../../../contracts/errors.js';
import type { Spec } from '../../../contracts/spec.js';
import type { Db } from '../../store/db.js';
import type { AwsAccess } from './aws-access.js';
import { loadAwsAccount } from './ecs-accounts.js';
import { readEcsArtifact } from './ecs-artifact.js';
import type { EcsTarget } from './ecs-target.js';

interface DueRow { id: string; aws_account: string; current_version: string; artifact: string; spec: Spec }

export async function sweepEcsStatus(db: Db, aws: AwsAccess, log: (line: string) => void): Promise<number> {
  const due = await db.query<DueRow>(
    `select e.id, e.aws_account, e.current_version, p.artifact, v.spec from envs e
       join versions v on v.id = e.current_version
       join env_plans p on p.deployment = v.deployment and p.status = 'approved'
      where e.target = 'aws_ecs' and e.status in ('running', 'degraded') and e.aws_account is not null`,
  );
  for (const env of due) {
    const account = await loadAwsAccount(db, env.aws_account);
    if (!account || account.removed_at) continue;
    let target: EcsTarget;
    try {
      target = await aws.target(account);
    } catch (err) {
      log(`ecs status: env ${env.id}: ${messageOf(err)}`);
      continue;
    }
    try {
      const plan = readEcsArtifact(env.artifact);
      const live = await target.liveStatus(plan);
      const workloads = live.workloads.map((w) => {
        const reasons = [...new Set(w.pods.map((p) => p.reason).filter((r): r is string => r !== null))];
        return {
          service: plan.container.service, version: env.current_version, desired: w.desired, ready: w.ready,
          detail: reasons.length > 0 ? reasons.join(', ') : `${w.ready}/${w.desired} tasks running`,
          runtime: 'aws_ecs', image: w.images[0] ?? null, restarts: 0, command: null, pid: null, port: plan.container.port,
          tasks: w.pods.map((p) => ({ ...p })),
        };
      });
      const endpoints = live.endpoints.map((url) => ({ service: plan.container.service, url }));
      // received_at is this clock's, as for an agent's live status (the monitor compares it with updated_at).
      await db.query(
        "update envs set live_status = jsonb_set($2::jsonb, '{received_at}', to_jsonb(now())), endpoints = $3 where id = $1 and current_version = $4",
        [env.id, JSON.stringify({ at: new Date().toISOString(), workloads }), JSON.stringify(endpoints), env.current_version],
      );
    } catch (err) {
      log(`ecs status: env ${env.id}: ${messageOf(err)}`);
    } finally {
      target.close();
    }
  }
  return due.length;
}
