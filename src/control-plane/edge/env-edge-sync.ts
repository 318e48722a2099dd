/**
 * Bring an env's edge to what it should be (issue 12): the one executor behind the deploy's
 * `ingress` phase, stop and teardown (which want nothing) and the edge sweep.
 *
 *   desired routes (desired-edge.ts) + what the env's record says may exist (env-edge-record.ts)
 *   → one `env.edge` to the env's host with the team's providers → the record written at once
 *
 * It never throws for a provider: the answer says what each did, and a failure leaves the record
 * `degraded` for the sweep. It throws only when the host could not be asked at all.
 */
import type { EnvEdgePayload, EnvEdgeResult } from '../../contracts/env-edge.js';
import type { EnvStage } from '../../contracts/domain.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import type { Db } from '../store/db.js';
import { readTeamEdge } from '../store/team-edge.js';
import { desiredEdge, type DesiredEdge } from './desired-edge.js';
import { readEnvEdge, summaryOf, writeEnvEdge, type EnvEdgeRecord } from './env-edge-record.js';
import type { DnsConfig, ProxyConfig } from '../../edge/edge-config.js';

export type SendEdge = (payload: EnvEdgePayload) => Promise<EnvEdgeResult>;

export interface EdgeEnv {
  readonly id: string;
  readonly team: string;
  readonly project: string;
  readonly name: string;
  readonly stage: string;
}

export interface EdgeSyncOutcome {
  readonly desired: DesiredEdge;
  /** Null when nothing was sent: `reason` says why. */
  readonly result: EnvEdgeResult | null;
  readonly reason: string | null;
  readonly record: EnvEdgeRecord | null;
}

export const NOTHING: DesiredEdge = { routes: [], names: [], skipped: [] };

/** What the edge of an env depends on besides its services: the team's settings, the project's name, the env's record. */
export interface EdgeFacts {
  /** The project's base domain, else the team's. */
  readonly baseDomain: string | null;
  readonly proxy: ProxyConfig | null;
  readonly dns: DnsConfig | null;
  readonly project: string;
  readonly previous: EnvEdgeRecord | null;
}

export const hasEdge = (services: Readonly<Record<string, ServiceSpec>> | null) => services !== null && Object.values(services).some((s) => s.edge);

/** Read `EdgeFacts` for one env; `previous` when the caller read the record already (the sweep reads everything in its one query instead). */
export async function readEdgeFacts(db: Db, env: EdgeEnv, previous?: EnvEdgeRecord | null): Promise<EdgeFacts> {
  const [team, project, record] = await Promise.all([
    readTeamEdge(db, env.team),
    db.query<{ name: string; base_domain: string | null }>('select name, base_domain from projects where id = $1', [env.project]),
    previous !== undefined ? previous : readEnvEdge(db, env.id),
  ]);
  return { baseDomain: project[0]?.base_domain ?? team.base_domain, proxy: team.proxy, dns: team.dns, project: project[0]?.name ?? env.project, previous: record };
}

/** What `env` should have with `services` listening on `ports` (null services: nothing, e.g. stopped). Pure. */
export function desiredEdgeOf(facts: EdgeFacts, env: EdgeEnv, services: Readonly<Record<string, ServiceSpec>> | null, ports: Readonly<Record<string, number>>): DesiredEdge {
  if (!hasEdge(services)) return NOTHING;
  return desiredEdge({ env: { id: env.id, name: env.name, stage: env.stage as EnvStage }, project: facts.project, baseDomain: facts.baseDomain, services: services!, ports });
}

/**
 * `o.endpoints`: the env's endpoints as they should show once the routes are sent (written with
 * the record, so a reader never sees one without the other). `o.readAt`: when the caller read what
 * `desired` was made from (default: now) — the payload's generation (contracts/env-edge.ts). A
 * payload the host answers `stale` changes nothing there, and nothing is recorded here.
 */
export async function syncEnvEdge(db: Db, env: EdgeEnv, facts: EdgeFacts, desired: DesiredEdge, send: SendEdge, o: { endpoints?: unknown[]; readAt?: number } = {}): Promise<EdgeSyncOutcome> {
  const readAt = o.readAt ?? Date.now();
  const { previous } = facts;
  const wantedIds = new Set(desired.routes.map((r) => r.id));
  const remove_routes = (previous?.routes ?? []).map((r) => r.id).filter((id) => !wantedIds.has(id));
  const remove_names = (previous?.names ?? []).filter((n) => !desired.names.includes(n));
  const idle = (reason: string): EdgeSyncOutcome => ({ desired, result: null, reason, record: previous });

  if (desired.routes.length === 0 && remove_routes.length === 0 && remove_names.length === 0) {
    return idle(desired.skipped.map((s) => `${s.service}: ${s.reason}`).join('; ') || 'no service has x-denv.edge');
  }
  const proxy = facts.proxy ?? { provider: 'none' as const };
  const dns = facts.dns ?? { provider: 'none' as const };
  if (proxy.provider === 'none' && dns.provider === 'none') return idle('the team has no proxy or DNS provider (denv edge set-proxy …, denv edge set-dns …)');

  const result = await send({ env: env.id, proxy, dns, routes: desired.routes.map(({ drain_ms: _, ...r }) => r), remove_routes, remove_names, generation: readAt });
  if (result.proxy.status === 'stale') return { desired, result: null, reason: 'a later edge state reached the host first', record: previous };
  // Keep listing what a failed removal may have left, so a later sync removes it.
  const gone = (o: EnvEdgeResult['proxy']) => new Set(o.changes.filter((c) => c.action === 'removed' || c.action === 'absent').map((c) => c.key));
  const routesGone = gone(result.proxy);
  const namesGone = gone(result.dns);
  const routes = [
    ...desired.routes.map((r) => ({ id: r.id, service: r.service, hostnames: r.hostnames, port: r.port })),
    ...(previous?.routes ?? []).filter((r) => remove_routes.includes(r.id) && !routesGone.has(r.id) && result.proxy.status !== 'skipped'),
  ];
  const names = [...desired.names, ...remove_names.filter((n) => !namesGone.has(n) && result.dns.status !== 'skipped')];
  const record: EnvEdgeRecord | null = routes.length === 0 && names.length === 0 ? null : { routes, names, ...summaryOf(result), applied_at: new Date().toISOString() };
  await writeEnvEdge(db, env.id, record, o.endpoints ?? null);
  return { desired, result, reason: null, record };
}
