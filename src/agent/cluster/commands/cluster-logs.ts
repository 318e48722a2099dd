import type { Commands } from '../../../contracts/protocol.js';
import { contentOffsets } from '../../../contracts/log-offsets.js';
import type { LogLine } from '../../../contracts/telemetry.js';
import type { ClusterHandler } from '../cluster-context.js';

type C = Commands['logs.request'];

/** logs.request on a cluster (read-only): the last `lines` (≤ 200) of each of the env's Deployments,
 *  from its pods' logs. `follow_ms` is not supported here: a follow gets the snapshot only. */
export const clusterLogs: ClusterHandler<C['payload'], C['result']> = {
  async run({ env, lines }, ctx) {
    const known = ctx.envs.get(env);
    if (!known) return { env, lines: [] };
    const at = new Date().toISOString();
    const out: LogLine[] = [];
    for (const [deployment, service] of Object.entries(known.deployments)) {
      // A line keeps the kubelet's time; its offset comes from that time and its text, so a line
      // read again is stored once, and equal lines at other times are lines of their own.
      // (A line without a time gets the request's, but its offset from the text alone: stored once.)
      const got = await ctx.cluster.logs(deployment, Math.min(lines, 200));
      const offsets = contentOffsets(got.map((l) => `${l.at ?? '-'} ${l.text}`));
      got.forEach((l, i) => out.push({ service, version: known.version, offset: offsets[i]!, at: l.at ?? at, text: l.text }));
    }
    return { env, lines: out };
  },
};
