import type { EnvCreateResult } from '../../../contracts/protocol.js';
import { PhaseFailed, ok, type PhaseDef } from '../phase.js';

/** Derived from the start result: every service healthy; the env's endpoints are refreshed. */
export const startHealth: PhaseDef = {
  name: 'health',
  async run(ctx) {
    const res = ctx.state.start as EnvCreateResult;
    if (res.outcome !== 'healthy') throw new PhaseFailed(res.message ?? 'a service failed its health check', { endpoints: res.endpoints, services: res.services });
    const endpoints = res.endpoints.map((e) => ({ service: e.service, url: e.url }));
    await ctx.db.query('update envs set endpoints = $2, updated_at = now() where id = $1', [ctx.deployment.env, JSON.stringify(endpoints)]);
    return ok({ endpoints: res.endpoints, healthy_in_ms: res.healthy_in_ms });
  },
};
