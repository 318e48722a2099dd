/**
 * The edge sweep (issue 12, item 5): the edge converges instead of waiting for the next deploy.
 * For each env of a team with edge providers, or with anything on the edge:
 *
 *   running / degraded, no deployment in flight   its current version's routes and names
 *   stopped / torn_down                           nothing (whatever its record still lists goes)
 *   any other status                              left alone (a deployment owns it, or a person)
 *
 * An env is sent `env.edge` when what it should have differs from its record (start, rollback and
 * fork move ports without an ingress phase; a base domain changed), when its record is `degraded`
 * and `retryMs` has passed since the last try, and every `recheckMs` in any case — providers
 * answer an unchanged route with reads only, so that re-check repairs a route someone deleted by
 * hand at the cost of one read. Never part of a deployment; failures are logged and retried.
 */
import { randomUUID } from 'node:crypto';
import { messageOf } from '../../contracts/errors.js';
import { linkedSignal } from '../../lib/linked-abort.js';
import type { ServiceSpec } from '../../contracts/spec.js';
import { withPublic, type DesiredEdge } from '../edge/desired-edge.js';
import type { EnvEdgeRecord } from '../edge/env-edge-record.js';
import { desiredEdgeOf, syncEnvEdge, type EdgeFacts } from '../edge/env-edge-sync.js';
import type { DnsConfig, ProxyConfig } from '../../edge/edge-config.js';
import type { AgentGateway } from '../gateway/agent-gateway.js';
import type { Db } from '../store/db.js';

export interface EdgeSweepOptions {
  readonly db: Db;
  readonly agents: AgentGateway;
  readonly log: (line: string) => void;
  /** A degraded env is tried again this long after its last try (default 30 s). */
  readonly retryMs?: number;
  /** Every env on the edge is re-applied this often even when nothing changed (default 5 min). */
  readonly recheckMs?: number;
}

/** Bound on one env's `env.edge` (each provider call has its own 10–15 s timeout). */
const APPLY_TIMEOUT_MS = 60_000;

interface Candidate {
  id: string; team: string; project: string; name: string; stage: string; status: string; host: string | null;
  endpoints: { service: string; url: string }[]; edge: EnvEdgeRecord | null; services: Record<string, ServiceSpec> | null;
  project_name: string; base_domain: string | null; proxy: ProxyConfig | null; dns: DnsConfig | null;
}

/** Same routes (id, hostnames, port) and names: nothing to send unless a retry or re-check is due. */
export function sameEdge(desired: DesiredEdge, record: EnvEdgeRecord | null): boolean {
  if (!record) return desired.routes.length === 0;
  const key = (r: { id: string; hostnames: readonly string[]; port: number }) => `${r.id} ${[...r.hostnames].sort().join(',')} ${r.port}`;
  const a = desired.routes.map(key).sort().join('\n');
  const b = record.routes.map(key).sort().join('\n');
  return a === b && [...desired.names].sort().join() === [...record.names].sort().join();
}

/** `http://127.0.0.1:4100` → 4100. */
const portOf = (url: string) => Number(new URL(url).port) || 0;

export class EdgeSweep {
  private readonly lastTry = new Map<string, number>();
  private readonly stopping = new AbortController();

  constructor(private readonly opts: EdgeSweepOptions) {}

  stop(): void {
    this.stopping.abort();
  }

  /** One pass; returns how many envs were sent `env.edge`. */
  async sweep(): Promise<number> {
    const { db } = this.opts;
    // The generation of every payload this pass sends: a deploy that began after this read sends a later one.
    const readAt = Date.now();
    const envs = await db.query<Candidate>(
      `select e.id, e.team, e.project, e.name, e.stage, e.status, e.host, e.endpoints, e.edge,
              case when e.status in ('running', 'degraded') then v.spec->'services' end as services,
              p.name as project_name, coalesce(p.base_domain, t.base_domain) as base_domain, t.proxy, t.dns
         from envs e
         join projects p on p.id = e.project
         left join versions v on v.id = e.current_version
         left join team_edge t on t.team = e.team
        where (e.edge is not null or t.proxy is not null or t.dns is not null)
          and e.host is not null
          and e.status in ('running', 'degraded', 'stopped', 'torn_down')
          and not exists (select 1 from deployments d where d.env = e.id and d.status in ('pending', 'running'))`,
    );
    let sent = 0;
    for (const env of envs) {
      if (this.stopping.signal.aborted) break;
      if (env.status !== 'running' && env.status !== 'degraded' && env.edge === null) continue;
      try {
        if (await this.syncIfDue(env, readAt)) sent++;
      } catch (err) {
        this.opts.log(`edge sweep: env ${env.id}: ${messageOf(err)}`);
      }
    }
    return sent;
  }

  private async syncIfDue(env: Candidate, readAt: number): Promise<boolean> {
    const { db, agents } = this.opts;
    // Everything the edge depends on came with the pass's one query: an env with nothing due costs no statement.
    const facts: EdgeFacts = { baseDomain: env.base_domain, proxy: env.proxy, dns: env.dns, project: env.project_name, previous: env.edge };
    const ports = Object.fromEntries(env.endpoints.map((e) => [e.service, portOf(e.url)]));
    const desired = desiredEdgeOf(facts, env, env.services, ports);
    const now = Date.now();
    const last = this.lastTry.get(env.id) ?? 0;
    const due = !sameEdge(desired, env.edge) || (env.edge?.status === 'degraded' && now - last >= (this.opts.retryMs ?? 30_000)) || (env.edge !== null && now - last >= (this.opts.recheckMs ?? 300_000));
    if (!due || !agents.isConnected(env.host!)) return false;
    this.lastTry.set(env.id, now);
    const apply = linkedSignal([this.stopping.signal], APPLY_TIMEOUT_MS);
    // The endpoints' `public` URLs change with the routes, in the same write.
    const endpoints = env.status === 'running' || env.status === 'degraded' ? withPublic(env.endpoints, desired) : undefined;
    try {
      const sync = await syncEnvEdge(db, env, facts, desired, (payload) => agents.call(env.host!, 'env.edge', payload, { deployment: null, key: randomUUID(), signal: apply.signal, requireConnected: true }), { endpoints, readAt });
      return sync.result !== null;
    } finally {
      apply.dispose();
    }
  }
}
