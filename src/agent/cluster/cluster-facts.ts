import os from 'node:os';
import type { HostFacts } from '../../contracts/domain.js';
import type { ClusterFacts } from '../../contracts/kubernetes.js';
import { VERSION } from '../../lib/version.js';

/** What a cluster agent says in `hello`: the runtime `kubernetes` (host placement skips it), no
 *  datasets (data lives in PersistentVolumeClaims), and the cluster's facts for the planner. */
export function clusterHostFacts(cluster: ClusterFacts): HostFacts {
  return {
    hostname: os.hostname(),
    platform: 'kubernetes',
    arch: process.arch,
    runtimes: ['kubernetes'],
    dataset_driver: 'none',
    agent_version: VERSION,
    cluster,
  };
}
