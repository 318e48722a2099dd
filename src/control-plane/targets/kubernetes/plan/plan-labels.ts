/**
 * The labels every planned object carries (contracts/kubernetes.ts): the agent lists an env's live
 * objects by `denv.dev/env`, and evolve and withImages find a service's objects by
 * `denv.dev/service`. Values are label-safe forms of denv's names (kube-names.ts).
 */
import { LABEL_ENV, LABEL_MANAGED_BY, LABEL_SERVICE } from '../../../../contracts/kubernetes.js';
import { labelValue } from './kube-names.js';

/** On PVCs: the dataset (Compose named volume) the claim holds. */
export const LABEL_VOLUME = 'denv.dev/volume';
export const MANAGED_BY = 'denv';

/** The labels (also the selector) of a service's Deployment, pods, Service and Ingress. */
export function serviceLabels(envName: string, service: string): Record<string, string> {
  return { [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_ENV]: labelValue(envName), [LABEL_SERVICE]: labelValue(service) };
}

/** The labels of a dataset's PVC. */
export function volumeLabels(envName: string, volume: string): Record<string, string> {
  return { [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_ENV]: labelValue(envName), [LABEL_VOLUME]: labelValue(volume) };
}
