/**
 * What an ECS plan is made from and what the executor runs (the artifact's content): types only,
 * shared by the planner (ecs-plan.ts) and its summary (ecs-summary.ts).
 */
import type { RegisterTaskDefinitionCommandInput, Tag } from '@aws-sdk/client-ecs';
import type { Spec } from '../../../contracts/spec-types.js';
import type { PortSource } from './container-port.js';

export interface EcsPlanInput {
  readonly spec: Spec;
  readonly envName: string;
  /** Free-text instructions: the project's, plus every re-plan guidance, in order. */
  readonly instructions: string;
  /** The version this plan replaces (the service is then updated in place), null for a first deploy. */
  readonly replacesVersion: number | null;
  readonly account: { readonly region: string };
  /** The project's registry login, by its server only (the user name and password are handed to
   *  the executor at apply, never planned), and the project's name, which names the secret. Absent
   *  or null: the project has none. */
  readonly registry?: { readonly project: string; readonly server: string } | null;
}

/** Seed 002's registry-pull secret: the image is on the project's private registry, so apply
 *  ensures a Secrets Manager secret holding the login, lets the execution role read it, and
 *  registers the container with `repositoryCredentials` naming the secret's ARN. */
export interface EcsPullSecretPlan {
  /** The registry host (lower case; Docker Hub as `docker.io`). */
  readonly server: string;
  /** The secret's name in the account (pull-secret-plan.ts). */
  readonly secretName: string;
  /** The execution role's inline policy allowing secretsmanager:GetSecretValue on the secret. */
  readonly policyName: string;
}

/** What CreateService/UpdateService need beyond the task definition; the network (subnets, the
 *  security group's id) is found at apply time, in the account's default VPC. */
export interface EcsServicePlan {
  readonly cluster: string;
  readonly serviceName: string;
  readonly desiredCount: number;
  readonly launchType: 'FARGATE';
  readonly assignPublicIp: 'ENABLED';
  /** The security group's name (`denv-<env>`), opening the container port. */
  readonly securityGroupName: string;
  /** Rolling update, and ECS's circuit breaker: a deployment whose tasks keep failing is stopped and
   *  rolled back, so the old version keeps serving after a bad image. */
  readonly deploymentConfiguration: {
    readonly minimumHealthyPercent: number;
    readonly maximumPercent: number;
    readonly deploymentCircuitBreaker: { readonly enable: boolean; readonly rollback: boolean };
  };
  readonly tags: readonly Tag[];
}

/** Everything the executor needs; what the artifact holds. */
export interface EcsRunPlan {
  readonly envName: string;
  readonly region: string;
  readonly container: {
    /** The container's name in the task definition (the service's name, limited to ECS's characters). */
    readonly name: string;
    /** The spec's service it runs. */
    readonly service: string;
    readonly port: number;
    readonly portFrom: PortSource;
  };
  /** The role is made by the executor when missing; the task definition gets its ARN at apply time
   *  (the plan does not know the account id), so `taskDefinition.executionRoleArn` is unset here. */
  readonly executionRole: { readonly name: string; readonly policyArn: string };
  readonly logGroup: string;
  /** Set when the container pulls with the project's registry login; absent otherwise (and in
   *  plans made before there were pull secrets). */
  readonly pullSecret?: EcsPullSecretPlan;
  /** The container's `image` is unset when it comes from a build (a linked repository): apply must be given one. */
  readonly taskDefinition: RegisterTaskDefinitionCommandInput;
  readonly service: EcsServicePlan;
}
