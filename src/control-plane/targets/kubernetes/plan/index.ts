/** The Kubernetes target's planner: pure builders of the manifests an agent applies (kube-plan.ts). */
export { planKubernetes, type KubePlan, type KubePlanInput } from './kube-plan.js';
export { validateManifests } from './validate-manifests.js';
export { withImages, withReplicas } from './patch-manifests.js';
export { refsOf } from './refs-of.js';
export { manifestsYaml, parseManifestsYaml } from './manifests-yaml.js';
export type { ManifestRules } from './rule-problems.js';
