/**
 * Recent log lines of an aws_ecs env (seed 002: "AWS deployments pull from CloudWatch"): the last
 * `lines` (≤ 200) of its log group, in the shape agents send, for the logs API to store and show.
 */
import type { Spec } from '../../../contracts/spec.js';
import { contentOffsets } from '../../../contracts/log-offsets.js';
import type { LogLine } from '../../../contracts/telemetry.js';
import type { Db } from '../../store/db.js';
import type { EnvRow } from '../../store/rows.js';
import type { AwsAccess } from './aws-access.js';
import { loadAwsAccount } from './ecs-accounts.js';
import { readEcsArtifact } from './ecs-artifact.js';

export async function ecsEnvLogs(db: Db, aws: AwsAccess, env: EnvRow, lines: number): Promise<LogLine[]> {
  if (!env.aws_account || !env.current_version) return [];
  const rows = await db.query<{ artifact: string; spec: Spec }>(
    "select p.artifact, v.spec from versions v join env_plans p on p.deployment = v.deployment and p.status = 'approved' where v.id = $1",
    [env.current_version],
  );
  const account = await loadAwsAccount(db, env.aws_account);
  if (!rows[0] || !account) return [];
  const plan = readEcsArtifact(rows[0].artifact);
  const target = await aws.target(account);
  try {
    const got = await target.logs(plan, Math.min(lines, 200));
    const offsets = contentOffsets(got.map((l) => `${l.at} ${l.stream} ${l.text}`));
    return got.map((l, i) => ({ service: plan.container.service, version: env.current_version!, offset: offsets[i]!, at: l.at, text: l.text }));
  } finally {
    target.close();
  }
}
