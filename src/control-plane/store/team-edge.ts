/**
 * A team's edge settings in the store (table `team_edge`, one row per team). What is read here
 * carries the secrets in clear, as providers need them (`openProxyProvider(edge.proxy)`); the
 * API shows it only through `redactProxyConfig`/`redactDnsConfig` (api/edge.ts).
 */
import type { DnsSettings, ProxySettings } from '../../contracts/edge-settings.js';
import type { DnsConfig, ProxyConfig } from '../../edge/edge-config.js';
import type { Db } from './db.js';
import { iso } from './rows.js';

export interface TeamEdge {
  readonly base_domain: string | null;
  readonly proxy: ProxyConfig | null;
  readonly dns: DnsConfig | null;
  readonly updated_at: string | null;
}

/** A change to the settings: a field left out keeps its stored value, `null` clears it. */
export interface TeamEdgeChange {
  readonly base_domain?: string | null;
  readonly proxy?: ProxyConfig | null;
  readonly dns?: DnsConfig | null;
}

// The API's schemas parse to exactly what providers take: a field added to, dropped from or
// made optional on one side only fails the build here.
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const schemasMatchConfigs: [Equals<Readonly<ProxySettings>, ProxyConfig>, Equals<Readonly<DnsSettings>, DnsConfig>] = [true, true];
void schemasMatchConfigs;

interface TeamEdgeRow { base_domain: string | null; proxy: ProxyConfig | null; dns: DnsConfig | null; updated_at: unknown }

const toTeamEdge = (r: TeamEdgeRow | undefined): TeamEdge =>
  r ? { base_domain: r.base_domain, proxy: r.proxy, dns: r.dns, updated_at: iso(r.updated_at) } : { base_domain: null, proxy: null, dns: null, updated_at: null };

/** The team's settings; all null when it never set any. */
export async function readTeamEdge(db: Db, team: string): Promise<TeamEdge> {
  const rows = await db.query<TeamEdgeRow>('select base_domain, proxy, dns, updated_at from team_edge where team = $1', [team]);
  return toTeamEdge(rows[0]);
}

/**
 * Apply `change` and return the settings as stored after it. One statement: two writers that
 * change different fields at once (`denv edge set-proxy` beside `set-dns`) both keep their
 * change, since each field is taken from the stored row unless this change names it.
 */
export async function writeTeamEdge(db: Db, team: string, change: TeamEdgeChange): Promise<TeamEdge> {
  const given = (k: keyof TeamEdgeChange) => change[k] !== undefined;
  const json = (v: object | null | undefined) => (v === undefined || v === null ? null : JSON.stringify(v));
  const rows = await db.query<TeamEdgeRow>(
    `insert into team_edge as t (team, base_domain, proxy, dns, updated_at) values ($1, $2, $3::jsonb, $4::jsonb, now())
     on conflict (team) do update set
       base_domain = case when $5 then excluded.base_domain else t.base_domain end,
       proxy = case when $6 then excluded.proxy else t.proxy end,
       dns = case when $7 then excluded.dns else t.dns end,
       updated_at = now()
     returning base_domain, proxy, dns, updated_at`,
    [team, change.base_domain ?? null, json(change.proxy), json(change.dns), given('base_domain'), given('proxy'), given('dns')],
  );
  return toTeamEdge(rows[0]);
}
