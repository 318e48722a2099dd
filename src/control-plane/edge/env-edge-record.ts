/**
 * What the control plane remembers of an env's edge (column `envs.edge`): the routes and names it
 * asked the env's host to apply, and how the providers answered. It is written right after every
 * `env.edge`, whatever the deployment then does, so whatever may exist on a proxy or a DNS zone
 * is always listed here and can be removed later (stop, teardown, a name that changed).
 */
import type { EnvEdge } from '../../contracts/domain.js';
import type { EnvEdgeResult } from '../../contracts/env-edge.js';
import type { Db } from '../store/db.js';

/** The env's `edge` as the API shows it (names: DNS names that may exist: the last ones asked for, plus older ones whose removal did not succeed), with the routes on the same rule. */
export interface EnvEdgeRecord extends EnvEdge {
  readonly routes: readonly { readonly id: string; readonly service: string; readonly hostnames: readonly string[]; readonly port: number }[];
}

export async function readEnvEdge(db: Db, env: string): Promise<EnvEdgeRecord | null> {
  const rows = await db.query<{ edge: EnvEdgeRecord | null }>('select edge from envs where id = $1', [env]);
  return rows[0]?.edge ?? null;
}

/** `endpoints`: the env's endpoints to show with it (their `public` URLs), written in the same statement; null keeps them. */
export async function writeEnvEdge(db: Db, env: string, record: EnvEdgeRecord | null, endpoints: unknown[] | null = null): Promise<void> {
  await db.query('update envs set edge = $2, endpoints = coalesce($3, endpoints) where id = $1', [env, record === null ? null : JSON.stringify(record), endpoints === null ? null : JSON.stringify(endpoints)]);
}

/** What the providers answered, without the per-route changes (those are evidence, not state). */
export function summaryOf(result: EnvEdgeResult): Pick<EnvEdgeRecord, 'status' | 'proxy' | 'dns'> {
  const pick = (o: EnvEdgeResult['proxy']) => ({ provider: o.provider, status: o.status, ...(o.error ? { error: o.error } : {}) });
  return {
    status: result.proxy.status === 'failed' || result.dns.status === 'failed' ? 'degraded' : 'ok',
    proxy: pick(result.proxy),
    dns: { ...pick(result.dns), addresses: result.dns.addresses },
  };
}
