/**
 * What a pending deployment waits for, in words for `denv deployments` and `GET /v1/deployments`.
 * The reasons mirror the engine's claim (engine.ts), in the order a person acts on them: phases no
 * control plane here runs, an older deployment of the same env, an env whose lifecycle has not
 * dispatched it yet (a plan being made or awaiting approval), another control plane's lease, and
 * otherwise the next sweep.
 */
import type { DeploymentKind, EnvStatus, EnvTarget } from '../../contracts/domain.js';
import type { Db } from '../store/db.js';
import { DISPATCH_WHEN } from '../lifecycle/dispatch.js';
import { runnablePhases } from './kinds.js';

/** What the words are made from: one pending deployment, its env, and what stands before it. */
export interface WaitFacts {
  readonly kind: DeploymentKind;
  readonly phases: readonly string[];
  readonly target: EnvTarget;
  /** `<project>/<env>`: what `denv env …` takes, unambiguous where a bare env name may not be. */
  readonly envRef: string;
  readonly envStatus: EnvStatus;
  /** The oldest active deployment of the same env created before it. */
  readonly blocker: { readonly id: string; readonly kind: string; readonly status: string } | null;
  /** A lease still running, held by a control plane. */
  readonly lease: { readonly owner: string; readonly until: string } | null;
}

/** Pure: the reason a deployment with these facts is still pending. */
export function waitingFor(f: WaitFacts, runnable: ReadonlySet<string> = new Set(runnablePhases())): string {
  const unknown = f.phases.filter((p) => !runnable.has(`${f.target}:${f.kind}:${p}`));
  if (f.phases.length === 0 || unknown.length > 0) {
    const what = f.phases.length === 0 ? `${f.kind} deployments` : `phase${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} of ${f.kind}`;
    return `a control plane that runs ${what} on ${f.target} (none here does: a newer denv version made it?)`;
  }
  if (f.blocker) return `${f.blocker.id} (${f.blocker.kind}, ${f.blocker.status}) to end: an env runs one deployment at a time`;
  const dispatchedIn = DISPATCH_WHEN[f.kind];
  if (dispatchedIn && !dispatchedIn.includes(f.envStatus)) {
    if (f.envStatus === 'awaiting_approval') return `approval of env ${f.envRef}'s plan (denv env approve ${f.envRef})`;
    if (f.envStatus === 'planning') return `env ${f.envRef}'s plan to be made`;
    return `env ${f.envRef} to be ${dispatchedIn.join(' or ')} (it is ${f.envStatus})`;
  }
  if (f.lease) return `control plane ${f.lease.owner}, which holds it until ${f.lease.until}`;
  return 'the engine to claim it (its next sweep)';
}

interface WaitRow {
  id: string;
  kind: DeploymentKind;
  phases: { name: string }[];
  target: EnvTarget;
  env_ref: string;
  env_status: EnvStatus;
  blocker_id: string | null;
  blocker_kind: string | null;
  blocker_status: string | null;
  lease_owner: string | null;
  lease_until: unknown;
}

/** What each of `ids` (pending deployments) waits for, read in one statement; ids not pending are left out. */
export async function waitingReasons(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<WaitRow>(
    `select d.id, d.kind, d.phases, e.target, p.name || '/' || e.name as env_ref, e.status as env_status,
            b.id as blocker_id, b.kind as blocker_kind, b.status as blocker_status,
            case when d.lease_until > now() then d.lease_owner end as lease_owner, d.lease_until
       from deployments d
       join envs e on e.id = d.env
       join projects p on p.id = e.project
       left join lateral (
         select o.id, o.kind, o.status from deployments o
         where o.env = d.env and o.status in ('pending', 'running') and o.seq < d.seq
         order by o.seq limit 1) b on true
      where d.id = any($1::text[]) and d.status = 'pending'`,
    [ids],
  );
  const runnable = new Set(runnablePhases());
  return new Map(
    rows.map((r) => [
      r.id,
      waitingFor(
        {
          kind: r.kind,
          phases: Array.isArray(r.phases) ? r.phases.map((p) => p.name) : [],
          target: r.target,
          envRef: r.env_ref,
          envStatus: r.env_status,
          blocker: r.blocker_id ? { id: r.blocker_id, kind: r.blocker_kind!, status: r.blocker_status! } : null,
          lease: r.lease_owner ? { owner: r.lease_owner, until: new Date(r.lease_until as string).toISOString() } : null,
        },
        runnable,
      ),
    ]),
  );
}
