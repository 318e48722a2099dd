import type { Commands } from '../../../contracts/protocol.js';
import type { ClusterHandler } from '../cluster-context.js';

type C = Commands['env.release'];

/** env.release (`separate`) on a cluster: nothing in the cluster changes (seed 002: the agent
 *  simply stops receiving commands for the env); the agent refuses every later command for it. */
export const clusterRelease: ClusterHandler<C['payload'], C['result']> = {
  async run({ env }, ctx) {
    await ctx.released.add(env, []);
    await ctx.envs.forget(env);
    return { released: true, left_running: [] };
  },
};
