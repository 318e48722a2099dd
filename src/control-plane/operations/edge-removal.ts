/**
 * Stop and teardown take the env off the edge before its services go (issue 12): every route
 * and DNS name its edge record lists is removed, so the proxy stops sending requests to a port
 * about to close and no name points at a host that no longer serves it. Best effort like all of
 * the edge: a failure is evidence (`edge`), never the phase's failure; the record keeps what was
 * not removed, and the edge sweep tries again.
 */
import { messageOf } from '../../contracts/errors.js';
import { syncEnvEdge, type EdgeEnv } from '../edge/env-edge-sync.js';
import type { PhaseContext } from './phase.js';

const NOTHING = { routes: [], names: [], skipped: [] };

/** Evidence for the phase: null when the env had nothing on the edge. */
export async function removeFromEdge(ctx: PhaseContext, env: EdgeEnv, host: string): Promise<Record<string, unknown> | null> {
  try {
    const sync = await syncEnvEdge(ctx.db, env, NOTHING, (payload) => ctx.call(host, 'env.edge', payload, 'edge-remove'));
    if (!sync.result) return null;
    const removed = (o: typeof sync.result.proxy) => ({ provider: o.provider, status: o.status, changes: o.changes, ...(o.error ? { error: o.error } : {}) });
    return { proxy: removed(sync.result.proxy), dns: removed(sync.result.dns), left: sync.record ? { routes: sync.record.routes.map((r) => r.id), names: sync.record.names } : null };
  } catch (err) {
    return { error: messageOf(err) };
  }
}
