/**
 * A `v1` PersistentVolumeClaim per dataset (Compose named volume) some service mounts.
 * ReadWriteOnce (what every storage class offers), 1Gi (Compose says nothing of size; a claim can
 * be expanded later where its class allows, never shrunk), and `storageClassName` only when the
 * cluster names a default class (otherwise the field is left out, and the cluster's admission
 * picks, or the claim waits for a matching volume).
 */
import type { ClusterFacts, KubeObject } from '../../../../contracts/kubernetes.js';
import { volumeLabels } from './plan-labels.js';
import type { PlanNames } from './plan-names.js';

export const DEFAULT_CLAIM_SIZE = '1Gi';

export function pvcManifest(envName: string, volume: string, names: PlanNames, facts: ClusterFacts): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: names.volumes[volume]!.claim, labels: volumeLabels(envName, volume) },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: DEFAULT_CLAIM_SIZE } },
      ...(facts.default_storage_class ? { storageClassName: facts.default_storage_class } : {}),
    },
  };
}
