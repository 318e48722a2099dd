import { PhaseFailed, ok, type PhaseDef } from '../phase.js';
import { loadVersion } from '../versions.js';
import { stateOf } from './state.js';

/**
 * verify.run in the grader fork: the verifier command in the agent service's context there, with
 * DENV_COLLECTED and DENV_REWARD_FILE. A verifier that reports no reward (or times out) fails the
 * phase; its exit code alone does not (contracts/verify.ts: the reward protocol).
 */
export const grade: PhaseDef = {
  name: 'grade',
  async run(ctx) {
    const state = stateOf(ctx.state);
    const verifier = (await loadVersion(ctx.db, state.version!))!.spec.verifier!;
    const res = await ctx.call(state.host!, 'verify.run', {
      env: state.grader_env!,
      service: state.agent_service!,
      command: [...verifier.command],
      timeout_ms: verifier.timeout_ms,
      collected: { env: ctx.deployment.env, capture: state.capture! },
    });
    state.grade = res;
    const evidence = {
      reward: res.reward, exit_code: res.exit_code, stdout: res.stdout, stderr: res.stderr, source: res.source, ran_for: res.ran_for,
      timed_out: res.timed_out, refused: (state.collect?.refused_count ?? 0) > 0,
    };
    if (res.timed_out) throw new PhaseFailed(`the verifier timed out after ${verifier.timeout_ms} ms`, evidence);
    if (res.reward === null) {
      const why = res.source === 'file' ? 'its reward file does not hold a number or {"reward": n}' : 'its last stdout line is not a number or {"reward": n}';
      throw new PhaseFailed(`the verifier reported no reward (exit ${res.exit_code}): ${why}`, evidence);
    }
    return ok(evidence);
  },
};
