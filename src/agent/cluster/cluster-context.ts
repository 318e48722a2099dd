/** What a cluster agent's command handlers work with (`denv agent --kubernetes`). */
import type { DispatchContext } from '../commands/dispatch.js';
import type { Cluster } from '../kubernetes/cluster.js';
import type { ClusterEnvs } from './cluster-envs.js';

export interface ClusterContext extends DispatchContext {
  readonly cluster: Cluster;
  readonly envs: ClusterEnvs;
}

/** One command kind's work on a cluster: the dispatcher validates, dedupes, logs and answers. */
export interface ClusterHandler<P, R> {
  run(payload: P, ctx: ClusterContext, receivedAt: number): Promise<R>;
}
