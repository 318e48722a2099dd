import type { EnvCreateResult } from '../../../contracts/protocol.js';
import { edgeEvidence } from '../edge-phase.js';
import type { PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';

/** Records the outcome; the env becomes `running` or `failed` (env-status.ts). A started env is
 *  put back on the edge at once (stop took it off), evidence `edge`; the sweep retries a failure. */
export const startVerdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const env = await ctx.env();
    const version = env.current_version;
    if (ctx.failure) return { status: 'ok', evidence: { version, started: false }, outcome: 'failed' };
    const started = ctx.state.start as EnvCreateResult | undefined;
    const spec = version ? await loadVersion(ctx.db, version) : undefined;
    const edge = started && spec && env.host ? await edgeEvidence(ctx, env, env.host, spec.spec.services, started.endpoints) : null;
    if (edge?.endpoints) await ctx.db.query('update envs set endpoints = $2 where id = $1', [env.id, JSON.stringify(edge.endpoints)]);
    return { status: 'ok', evidence: { version, started: true, ...(edge?.evidence ? { edge: edge.evidence } : {}) }, outcome: 'succeeded' };
  },
};
