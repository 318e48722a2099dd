import { edgeEvidence } from '../edge-phase.js';
import type { PhaseDef } from '../phase.js';
import { loadVersion, publicEndpoints, tookMs } from '../versions.js';
import { paramsOf, stateOf } from './state.js';

/** Success: the version is the env's current one, with the endpoints it now serves on, and the
 *  env's routes follow it (the agent already moved its relay routes; this records them and
 *  creates any the version adds), evidence `edge`. Failure: recorded only; the env keeps its
 *  current version. */
export const verdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const state = stateOf(ctx.state);
    if (ctx.failure) return { status: 'ok', evidence: { version: null, kept: state.previous_version ?? null, took_ms: tookMs(ctx) }, outcome: 'failed' };
    const { version } = paramsOf(ctx.deployment.params);
    const env = await ctx.env();
    const spec = await loadVersion(ctx.db, version);
    const edge = spec && env.host ? await edgeEvidence(ctx, env, env.host, spec.spec.services, state.restore!.endpoints) : null;
    await ctx.db.query('update envs set current_version = $2, endpoints = $3, last_error = null, updated_at = now() where id = $1', [
      ctx.deployment.env, version, JSON.stringify(edge?.endpoints ?? publicEndpoints(state.restore!)),
    ]);
    return { status: 'ok', evidence: { version, took_ms: tookMs(ctx), ...(edge?.evidence ? { edge: edge.evidence } : {}) }, outcome: 'succeeded' };
  },
};
