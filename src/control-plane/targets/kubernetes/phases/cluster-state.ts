/** What a cluster deploy's phases leave for later ones (beside deploy/state.ts's version fields). */
import type { KubeRef, WorkloadStatus } from '../../../../contracts/kubernetes.js';

export interface ClusterDeployState {
  version?: string;
  number?: number;
  previous_version?: string | null;
  host?: string | null;
  /** What prepare applied. */
  applied?: KubeRef[];
  workloads?: WorkloadStatus[];
  endpoints?: { service: string; url: string }[];
}

export const clusterStateOf = (s: Record<string, unknown>) => s as ClusterDeployState;
