import os from 'node:os';
import { applyEnvEdge } from '../edge/apply-env-edge.js';
import { EdgeRelay } from '../edge/edge-relay.js';
import { publicAddresses } from '../edge/public-address.js';
import type { CommandHandler } from './handler.js';

/**
 * env.edge: apply the env's routes and DNS names through the team's providers (edge/apply-env-edge.ts).
 * One at a time per env (its own lock, not the env's: a long env.create does not hold the edge
 * sweep back), so two applies never interleave their writes. Idempotent: re-sending it writes nothing.
 */
export const envEdge: CommandHandler<'env.edge'> = {
  run: (p, ctx) =>
    ctx.envLocks.run(`edge:${p.env}`, () => {
      const edge = ctx.pipeline?.edge;
      const relay = ctx.edgeRelay ?? new EdgeRelay(ctx.dataDir, ctx.ports, ctx.log);
      return applyEnvEdge(p, { relay, publicIp: edge?.publicIp ?? publicAddresses(null, os.networkInterfaces()), proxyBind: edge?.proxyBind ?? undefined });
    }),
};
