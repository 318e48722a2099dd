/** Deploy phases with nothing to do on a cluster: the engine still lists and records them (seed 000's
 *  eleven phases), each skipped with the reason. */
import { skippedPhase as skip } from '../../../operations/phase.js';

export const clusterProvision = skip('provision', 'a cluster target: the cluster agent is already there, no machine to make');
export const clusterJoin = skip('join', 'a cluster target: no machine joins');
export const clusterWarm = skip('warm', 'a cluster target: readiness probes gate the rollout; no warm-up requests');
export const clusterSnapshot = skip('snapshot', 'a cluster target: data lives in PersistentVolumeClaims; no dataset snapshot');
