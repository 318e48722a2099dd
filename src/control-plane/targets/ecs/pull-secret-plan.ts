/**
 * Seed 002's registry-pull secret, as planned: whether the service's image is pulled with the
 * project's registry login, and the names apply gives what it ensures for it. Pure and deterministic:
 * the plan holds names only — never the login (the executor is handed it at apply), nor an ARN (it
 * depends on the account and on Secrets Manager's random suffix).
 *
 * One secret per project and registry: an AWS account holds several projects' envs, and two
 * projects may log in to the same registry as different users; a secret per registry alone would
 * have each project's apply overwrite the other's login.
 */
import { createHash } from 'node:crypto';
import { normalRegistry, pullsFrom } from '../../../contracts/registry-credentials.js';
import type { EcsPullSecretPlan } from './ecs-run-plan.js';

/** IAM's limit on a policy name. */
const POLICY_NAME_MAX = 128;

/** `registry.example.com:5000` → `registry.example.com_5000`: Secrets Manager names and IAM policy
 *  names take no `:`, and no host holds a `_`, so two servers never get one name. */
const nameOf = (server: string) => normalRegistry(server).replace(':', '_');

/** The secret: `denv/registry/<project>/<server>` (letters, digits, `/_+=.@-`: Secrets Manager's characters). */
export const pullSecretName = (project: string, server: string): string => `denv/registry/${project}/${nameOf(server)}`;

/** The execution role's inline policy letting it read the secret: `denv-pull-<project>@<server>`
 *  (a project name holds no `@`, so the pair is read back unambiguously); past IAM's 128
 *  characters, `denv-pull-` and a hash of the secret's name. */
export function pullPolicyName(project: string, server: string): string {
  const name = `denv-pull-${project}@${nameOf(server)}`;
  if (name.length <= POLICY_NAME_MAX) return name;
  return `denv-pull-${createHash('sha256').update(pullSecretName(project, server)).digest('hex').slice(0, 32)}`;
}

/** What the plan says of the pull secret: set when `image` is on the project's registry `server`. */
export function planPullSecret(image: string | null, login: { readonly project: string; readonly server: string } | null): EcsPullSecretPlan | null {
  if (!image || !login || !pullsFrom(image, login.server)) return null;
  return { server: normalRegistry(login.server), secretName: pullSecretName(login.project, login.server), policyName: pullPolicyName(login.project, login.server) };
}
