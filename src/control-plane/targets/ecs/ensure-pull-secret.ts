/**
 * Seed 002's registry-pull secret, applied: when the plan pulls the image with the project's
 * registry login, the account gets a Secrets Manager secret of the plan's name holding
 * `{"username", "password"}` (ECS's format for private registry credentials), and the execution
 * role an inline policy allowing secretsmanager:GetSecretValue on that secret — the role, not the
 * task, pulls the image. Idempotent: the secret is made when missing, given a new value only when
 * the login changed, and the policy put only when missing or different, so an apply with the same
 * login writes nothing. Kept on teardown, like the role (scaffolding the next deployment reuses).
 *
 * The secret's value is read back to compare (GetSecretValue): the account's credentials may read
 * what denv wrote. A policy put seconds ago may not be in force yet (IAM is eventually
 * consistent): the service then retries its tasks, as after a new role.
 */
import { GetRolePolicyCommand, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { CreateSecretCommand, GetSecretValueCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { RegistryCredentials } from '../../../contracts/registry-credentials.js';
import { awsCall, awsCallExpecting } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import { holdsLogin, pullSecretPolicy, pullSecretValue, samePolicy } from './ecs-inputs.js';
import type { EcsPullSecretPlan, EcsRunPlan } from './ecs-plan.js';

export interface EnsuredPullSecret {
  readonly secretArn: string;
  /** What this call wrote: `secret <name>`, `secret value <name>` (the login changed),
   *  `role policy <role>/<policy>`. */
  readonly created: readonly string[];
}

export async function ensurePullSecret(aws: AwsClients, plan: EcsRunPlan, pull: EcsPullSecretPlan, login: RegistryCredentials, signal?: AbortSignal): Promise<EnsuredPullSecret> {
  const opts = { abortSignal: signal };
  const SecretId = pull.secretName;
  const value = pullSecretValue(login);
  const created: string[] = [];
  const read = () => awsCallExpecting('secretsmanager:GetSecretValue', ['ResourceNotFoundException'], () => aws.secrets.send(new GetSecretValueCommand({ SecretId }), opts));

  let found = await read();
  let secretArn: string | undefined;
  if ('error' in found) {
    const made = await awsCallExpecting('secretsmanager:CreateSecret', ['ResourceExistsException'], () =>
      aws.secrets.send(
        new CreateSecretCommand({
          Name: SecretId,
          SecretString: value,
          Description: `denv: the login ECS pulls images from ${pull.server} with`,
          Tags: [{ Key: 'denv:managed-by', Value: 'denv' }],
        }),
        opts,
      ),
    );
    if ('ok' in made) {
      secretArn = made.ok.ARN;
      created.push(`secret ${SecretId}`);
    } else found = await read(); // made by a racing apply: compare its value below
  }
  if ('ok' in found) {
    secretArn = found.ok.ARN;
    if (!holdsLogin(found.ok.SecretString, login)) {
      await awsCall('secretsmanager:PutSecretValue', () => aws.secrets.send(new PutSecretValueCommand({ SecretId: secretArn ?? SecretId, SecretString: value }), opts));
      created.push(`secret value ${SecretId}`);
    }
  }
  if (!secretArn) throw new Error(`secretsmanager:GetSecretValue: secret ${SecretId} has no ARN`);

  const RoleName = plan.executionRole.name;
  const PolicyName = pull.policyName;
  const PolicyDocument = pullSecretPolicy(secretArn);
  const policy = await awsCallExpecting('iam:GetRolePolicy', ['NoSuchEntityException'], () => aws.iam.send(new GetRolePolicyCommand({ RoleName, PolicyName }), opts));
  if (!('ok' in policy) || !samePolicy(policy.ok.PolicyDocument, PolicyDocument)) {
    await awsCall('iam:PutRolePolicy', () => aws.iam.send(new PutRolePolicyCommand({ RoleName, PolicyName, PolicyDocument }), opts));
    created.push(`role policy ${RoleName}/${PolicyName}`);
  }
  return { secretArn, created };
}
