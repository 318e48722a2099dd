/**
 * Version rows as the data operations (snapshot, fork, rollback, verify) use them. A version is
 * immutable once written, except `healthy` and `snapshot`, which its own deployment sets.
 */
import { newId } from '../../contracts/ids.js';
import type { Commands, EnvCreateResult } from '../../contracts/protocol.js';
import type { Spec } from '../../contracts/spec.js';
import type { Db } from '../store/db.js';
import type { DeploymentRow } from '../store/rows.js';
import { PhaseFailed, ok, type PhaseContext, type PhaseResult } from './phase.js';
import { sourcePayload } from './source-payload.js';

export interface VersionRecord {
  readonly id: string;
  readonly env: string;
  readonly number: number;
  readonly spec: Spec;
  readonly healthy: boolean;
  readonly snapshot: string | null;
}

export async function loadVersion(db: Db, id: string): Promise<VersionRecord | undefined> {
  const rows = await db.query<VersionRecord>('select id, env, number, spec, healthy, snapshot from versions where id = $1', [id]);
  return rows[0];
}

/**
 * The version row `dep` creates for its env with `spec`: made on the first run, found again on a
 * re-run (versions.deployment), numbered after the env's last version.
 */
export async function versionOfDeployment(db: Db, dep: Pick<DeploymentRow, 'id' | 'env'>, spec: Spec): Promise<{ id: string; number: number }> {
  return db.tx(async (tx) => {
    // Sent together, run in this order: the env locked before its versions are counted (issue 11:
    // one round trip, not three, while the embedded store's reads wait behind the transaction).
    const [existing, , [{ next }]] = (await Promise.all([
      tx.query<{ id: string; number: number }>('select id, number from versions where deployment = $1', [dep.id]),
      tx.query('select id from envs where id = $1 for update', [dep.env]),
      tx.query<{ next: number }>('select coalesce(max(number), 0) + 1 as next from versions where env = $1', [dep.env]),
    ])) as [{ id: string; number: number }[], unknown, [{ next: number }]];
    if (existing[0]) return existing[0];
    const id = newId('version');
    await tx.query('insert into versions (id, env, number, spec, deployment) values ($1, $2, $3, $4, $5)', [id, dep.env, next, JSON.stringify(spec), dep.id]);
    return { id, number: next };
  });
}

/** The env's endpoints as the API shows them, from an agent's start result. */
export const publicEndpoints = (r: Pick<EnvCreateResult, 'endpoints'>) => r.endpoints.map((e) => ({ service: e.service, url: e.url }));

/** `health` of an operation that started a version on a host (fork's clone, move's start): ok with
 *  its endpoints once every service passed its check, else failed saying why. */
export function healthOfStarted(res: EnvCreateResult): PhaseResult {
  if (res.outcome !== 'healthy') throw new PhaseFailed(res.message ?? 'a service failed its health check', { endpoints: publicEndpoints(res), services: res.services });
  return ok({ endpoints: publicEndpoints(res), healthy_in_ms: res.healthy_in_ms });
}

/** Milliseconds since the deployment was created (API request → now). */
export const tookMs = (ctx: PhaseContext) => Date.now() - new Date(ctx.deployment.created_at as string).getTime();

/**
 * env.rollback to `version` on `host`: the agent makes it the env's running version (adopting
 * or starting its services, stopping every other version); with `restoreData` it first replaces
 * the datasets by the version's snapshot. Deploy verdicts, start and the rollback kind all go
 * through here. `key` tells the phase's commands apart (idempotent per phase and key).
 */
export async function activateVersion(
  ctx: PhaseContext,
  host: string,
  version: Pick<VersionRecord, 'id' | 'spec' | 'snapshot'>,
  opts: { restoreData: boolean; key?: string },
): Promise<Commands['env.rollback']['result']> {
  return ctx.call(host, 'env.rollback', {
    env: ctx.deployment.env,
    version: version.id,
    services: { ...version.spec.services },
    volumes: [...version.spec.volumes],
    snapshot: version.snapshot,
    restore_data: opts.restoreData,
    ...(version.spec.files ? { files: version.spec.files } : {}),
    ...(await sourcePayload(ctx, ctx.deployment.env, version.spec)),
  }, opts.key);
}
