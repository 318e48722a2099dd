/**
 * The store side of snapshot retention (issue 9): which envs are due a retention sweep, what the
 * retention decision reads (control-plane/retention/keep-set.ts), and the marks it leaves on
 * versions. A version whose snapshot was pruned keeps its `snapshot` name (history, evidence)
 * and gets `snapshot_pruned_at`; rollback and fork refuse it with 409.
 */
import type { RetentionInput, RetentionVersion } from '../retention/keep-set.js';
import type { Db } from './db.js';

/** Operations after whose end an env's snapshots are judged again: those that make a snapshot,
 *  and rollback (its target was held while it ran). */
const SNAPSHOT_KINDS = ['deploy', 'snapshot', 'verify', 'rollback'];

const ACTIVE = "('pending', 'running')";

export interface DueEnv {
  readonly id: string;
  readonly team: string;
  readonly host: string;
}

/**
 * Claim up to `limit` envs due a sweep and mark them swept now (the claim: another replica's
 * identical update re-checks the condition on the row it would change and no longer matches).
 * Due: live, on a connected host (not a cluster: a Kubernetes env has no snapshots), and an operation that makes snapshots ended on it — or a fork
 * of one of its versions was destroyed — since its last sweep. A host that is down is simply not
 * claimed; its envs are swept once it is back. Deployments running on the env do not hold the
 * sweep back: what they need is kept (`retentionReads`), and what they create is never pruned
 * by a decision taken before it existed.
 */
export async function claimDueEnvs(db: Db, limit = 20): Promise<DueEnv[]> {
  return db.query<DueEnv>(
    `update envs set snapshots_swept_at = now()
     where id in (
       select e.id from envs e join hosts h on h.id = e.host
       where e.status not in ('torn_down', 'separated') and e.target = 'host' and h.connected_to is not null
         and (exists (select 1 from deployments d where d.env = e.id and d.kind = any($1) and d.finished_at is not null
                        and d.finished_at > coalesce(e.snapshots_swept_at, '-infinity'))
           or exists (select 1 from deployments d join envs f on f.id = d.env join versions pv on pv.id = f.parent_version
                      where pv.env = e.id and d.kind = 'destroy' and d.finished_at is not null
                        and d.finished_at > coalesce(e.snapshots_swept_at, '-infinity')))
       order by e.id
       limit $2
       for update of e skip locked)
     returning id, team, host`,
    [SNAPSHOT_KINDS, limit],
  );
}

/** Lock the env's row for the rest of the transaction (the API's rollback and fork lock it too),
 *  so a rollback is either seen as needing its target or sees the target marked pruned. */
export async function lockEnv(tx: Db, env: string): Promise<{ current_version: string | null; status: string; host: string | null } | undefined> {
  return (await tx.query<{ current_version: string | null; status: string; host: string | null }>('select current_version, status, host from envs where id = $1 for update', [env]))[0];
}

export interface VersionSnapshotRow extends RetentionVersion {
  readonly created_at: unknown;
  readonly snapshot_pruned_at: unknown;
}

/** What the retention decision reads of the env (its current version and the number to keep come
 *  from the caller): its versions, the live forks made from them, and the versions unfinished
 *  deployments still need. The three statements are sent together: on a transaction's handle they
 *  run in the order sent, after whatever the caller sent before them (lockEnv), in one round trip
 *  on the embedded store (issue 11: the API's reads wait behind a transaction there). */
export type RetentionReads = Omit<RetentionInput, 'currentVersion' | 'keepRecent' | 'versions'> & { readonly versions: VersionSnapshotRow[] };

export async function retentionReads(db: Db, env: string): Promise<RetentionReads> {
  const [versions, forks, needed] = await Promise.all([
    db.query<VersionSnapshotRow>('select id, number, healthy, snapshot, created_at, snapshot_pruned_at from versions where env = $1 order by number', [env]),
    db.query<RetentionInput['forks'][number]>(
      `select f.id as env, f.name, f.parent_version as "parentVersion" from envs f join versions v on v.id = f.parent_version
       where v.env = $1 and f.status <> 'torn_down' order by f.created_at`,
      [env],
    ),
    db.query<RetentionInput['needed'][number]>(
      `select params->>'version' as version, id as deployment, kind from deployments
         where env = $1 and status in ${ACTIVE} and params->>'version' is not null
       union all
       select v.id as version, d.id as deployment, d.kind from versions v join deployments d on d.id = v.deployment
         where v.env = $1 and d.status in ${ACTIVE}`,
      [env],
    ),
  ]);
  return { versions, forks, needed };
}

/** Mark the versions' snapshots pruned (before the host deletes them: a rollback asked for from
 *  now on is refused instead of failing on the host). Already marked ones keep their time; the
 *  answer is the versions marked now. */
export async function markSnapshotsPruned(tx: Db, versions: readonly string[]): Promise<string[]> {
  if (versions.length === 0) return [];
  const rows = await tx.query<{ id: string }>('update versions set snapshot_pruned_at = now() where id = any($1) and snapshot_pruned_at is null returning id', [[...versions]]);
  return rows.map((r) => r.id);
}

/** When the version's snapshot was pruned (null: not pruned). */
export async function snapshotPrunedAt(db: Db, version: string): Promise<unknown> {
  return (await db.query<{ snapshot_pruned_at: unknown }>('select snapshot_pruned_at from versions where id = $1', [version]))[0]?.snapshot_pruned_at ?? null;
}
