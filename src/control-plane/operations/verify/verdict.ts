import { messageOf } from '../../../contracts/errors.js';
import { destroyOnHost } from '../destroy/teardown.js';
import type { PhaseDef } from '../phase.js';
import { tookMs } from '../versions.js';
import { paramsOf, stateOf } from './state.js';

/**
 * The grade, and the clean-up: the grader fork is destroyed (torn_down; its data left in place
 * only when the host is unreachable). The agent's env keeps its current version; the capture
 * version stays, healthy and forkable. The agent service stays paused unless `resume: true`
 * (sent here too when the run failed before the snapshot phase could). On failure reward is null.
 */
export const verdict: PhaseDef = {
  name: 'verdict',
  async run(ctx) {
    const state = stateOf(ctx.state);
    let graderDestroyed: boolean | string = false;
    if (state.grader_env) {
      try {
        graderDestroyed = (await destroyOnHost(ctx, state.host ?? null, state.grader_env, 'grader')) !== null;
      } catch (err) {
        graderDestroyed = `destroy failed: ${messageOf(err)}`;
      }
      await ctx.db.query("update envs set status = 'torn_down', endpoints = '[]', updated_at = now() where id = $1", [state.grader_env]);
    }
    if (paramsOf(ctx.deployment.params).resume && !state.resumed && state.host && state.agent_service) {
      try {
        await ctx.call(state.host, 'env.resume', { env: ctx.deployment.env, service: state.agent_service }, 'resume');
        state.resumed = true;
      } catch {
        // The host is gone: the service is still paused there, which agent_frozen reports.
      }
    }
    const failed = ctx.failure !== null;
    const grade = state.grade;
    return {
      status: 'ok',
      evidence: {
        reward: failed ? null : (grade?.reward ?? null),
        source: failed ? null : (grade?.source ?? null),
        exit_code: grade?.exit_code ?? null,
        refused: (state.collect?.refused_count ?? 0) > 0,
        missing: state.collect?.missing ?? [],
        agent_frozen: state.collect?.paused === true && !state.resumed,
        took_ms: tookMs(ctx),
        capture: state.capture ?? null,
        grader_env: state.grader_env ?? null,
        grader_destroyed: graderDestroyed,
      },
      outcome: failed ? 'failed' : 'succeeded',
    };
  },
};
