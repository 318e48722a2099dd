import os from 'node:os';
import { applyEnvEdge } from '../edge/apply-env-edge.js';
import { EdgeRelay } from '../edge/edge-relay.js';
import { publicAddresses } from '../edge/public-address.js';
import type { CommandHandler } from './handler.js';

/** Per env, the generation of the last payload applied (contracts/env-edge.ts); lost with the process, when the first payload after a restart wins. */
const applied = new Map<string, number>();

const stale = (provider: string) => ({ provider, status: 'stale' as const, endpoint: provider, changes: [] });

/**
 * env.edge: apply the env's routes and DNS names through the team's providers (edge/apply-env-edge.ts).
 * One at a time per env (its own lock, not the env's: a long env.create does not hold the edge
 * sweep back), so two applies never interleave their writes, and in generation order: one older
 * than the last applied is answered `stale` and changes nothing. Idempotent: re-sending it writes nothing.
 */
export const envEdge: CommandHandler<'env.edge'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(`edge:${p.env}`, async () => {
      const generation = p.generation ?? 0;
      if (generation < (applied.get(p.env) ?? 0)) return { proxy: stale(p.proxy.provider), dns: { ...stale(p.dns.provider), addresses: [] } };
      applied.set(p.env, generation);
      // Contexts built without a pipeline host (tests of the process runtime) get the same relay on the same data dir.
      const edge = ctx.pipeline?.edge;
      const relay = edge?.relay ?? new EdgeRelay(ctx.dataDir, ctx.ports, ctx.log);
      return applyEnvEdge(p, { relay, publicIp: edge?.publicIp ?? publicAddresses(null, os.networkInterfaces()), proxyBind: edge?.proxyBind ?? undefined });
    }),
};
