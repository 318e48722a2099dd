/**
 * The AWS ECS target's executor (DESIGN §9, seed 002): the control plane applies an approved
 * EcsPlan to an AWS account with the AWS SDK — no agent. What each operation does, and leaves:
 *
 *  apply     ensures the cluster, the execution role, the registry-pull secret and the role's
 *            policy to read it (when the plan pulls with the project's registry login), the log
 *            group and the env's security group (made when missing), registers the task definition
 *            and creates or updates the service. Idempotent: a repeat after a failure half-way
 *            picks up what exists and carries on; an unchanged login is not written again.
 *  waitStable  polls until the service is stable, or failed, or the deadline passes.
 *  stop      desiredCount 0; the service, plan and everything else stay. `start` is apply again.
 *  teardown  deletes the service (force) and nothing else: cluster, role (and its policies), pull
 *            secret, log group, security group and task definitions stay for the next deployment
 *            (seed 002).
 *  liveStatus / logs  read-only views for telemetry.
 *
 * Each AWS call that fails throws an AwsCallError naming the call (`ecs:CreateService: …`).
 */
import { DeleteServiceCommand, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import { normalRegistry, type RegistryCredentials } from '../../../contracts/registry-credentials.js';
import { awsCallExpecting } from './aws-call.js';
import { closeAwsClients, makeAwsClients, type AwsClients, type EcsCredentials } from './aws-clients.js';
import { deployService } from './deploy-service.js';
import { scaleToZeroInput } from './ecs-inputs.js';
import { ecsLiveStatus, type EcsLiveStatus } from './ecs-live-status.js';
import { ecsLogs, type EcsLogLine } from './ecs-logs.js';
import type { EcsPullSecretPlan, EcsRunPlan } from './ecs-plan.js';
import { ensureCluster } from './ensure-cluster.js';
import { ensureExecutionRole } from './ensure-execution-role.js';
import { ensureLogGroup } from './ensure-log-group.js';
import { ensureNetwork } from './ensure-network.js';
import { ensurePullSecret } from './ensure-pull-secret.js';
import { waitStable, type StableResult, type WaitStableOptions } from './wait-stable.js';

export interface EcsApplyOptions {
  /** The image to run instead of the plan's (a build of a linked repository); required when the plan has none. */
  readonly image?: string;
  /** The project's registry login, read at apply (never planned); required when the plan pulls
   *  with it (`plan.pullSecret`), for the same server. */
  readonly registryCredentials?: RegistryCredentials;
  readonly signal?: AbortSignal;
}

export interface EcsApplyResult {
  readonly taskDefinitionArn: string;
  readonly serviceArn: string;
  /** What this apply made, in order, e.g. `cluster denv`, `role denv-ecs-execution`,
   *  `secret denv/registry/shop/ghcr.io`, `secret value …` (a changed login), `role policy
   *  denv-ecs-execution/denv-pull-shop@ghcr.io`, `log group /denv/prod`, `security group denv-prod (sg-…)`, `ingress tcp/3000`,
   *  `task definition denv-prod:2`, `service denv-prod`. */
  readonly created: readonly string[];
}

/** The login a plan that pulls with one must be given: for its registry, checked before any call writes. */
function loginFor(pull: EcsPullSecretPlan, login: RegistryCredentials | undefined): RegistryCredentials {
  if (!login) throw new Error(`the plan pulls the image from ${pull.server} with the project's registry login, and apply was given none`);
  if (normalRegistry(login.server) !== pull.server) throw new Error(`the plan pulls the image from ${pull.server}, and apply was given a registry login for ${login.server}`);
  return login;
}

/** ECS's answers that mean the service is not there (or no longer active): nothing to stop or delete. */
const NO_SERVICE = ['ServiceNotFoundException', 'ServiceNotActiveException', 'ClusterNotFoundException'];

export class EcsTarget {
  private readonly aws: AwsClients;
  private readonly region: string;

  constructor(credentials: EcsCredentials) {
    this.aws = makeAwsClients(credentials);
    this.region = credentials.region;
  }

  /** A plan made for another region than these credentials' would make resources in the wrong place. */
  private check(plan: EcsRunPlan): void {
    if (plan.region !== this.region) throw new Error(`the plan is for region ${plan.region}, the target's credentials for ${this.region}`);
  }

  async apply(plan: EcsRunPlan, o: EcsApplyOptions = {}): Promise<EcsApplyResult> {
    this.check(plan);
    const { signal } = o;
    const login = plan.pullSecret ? loginFor(plan.pullSecret, o.registryCredentials) : null;
    const created: string[] = [];
    const cluster = await ensureCluster(this.aws, plan, signal);
    if (cluster.created) created.push(`cluster ${plan.service.cluster}`);
    const role = await ensureExecutionRole(this.aws, plan, signal);
    if (role.created) created.push(`role ${plan.executionRole.name}`);
    const pull = plan.pullSecret && login ? await ensurePullSecret(this.aws, plan, plan.pullSecret, login, signal) : null;
    if (pull) created.push(...pull.created);
    const logGroup = await ensureLogGroup(this.aws, plan, signal);
    if (logGroup.created) created.push(`log group ${plan.logGroup}`);
    const network = await ensureNetwork(this.aws, plan, signal);
    created.push(...network.created);
    const deployed = await deployService(this.aws, plan, { executionRoleArn: role.roleArn, ...(o.image ? { image: o.image } : {}), ...(pull ? { pullSecretArn: pull.secretArn } : {}), network }, signal);
    created.push(`task definition ${plan.taskDefinition.family}:${deployed.revision}`);
    if (deployed.created) created.push(`service ${plan.service.serviceName}`);
    return { taskDefinitionArn: deployed.taskDefinitionArn, serviceArn: deployed.serviceArn, created };
  }

  /** Start (seed 002: re-enters deploying and applies again, at the plan's task count). */
  start(plan: EcsRunPlan, o: EcsApplyOptions = {}): Promise<EcsApplyResult> {
    return this.apply(plan, o);
  }

  waitStable(plan: EcsRunPlan, o: WaitStableOptions): Promise<StableResult> {
    this.check(plan);
    return waitStable(this.aws, plan, o);
  }

  /** Scales the service to zero. `existed: false`: there was no service (never applied, or torn
   *  down) — nothing runs, which is what stop wants, so it is not an error. */
  async stop(plan: EcsRunPlan, o: { readonly signal?: AbortSignal } = {}): Promise<{ readonly existed: boolean }> {
    this.check(plan);
    const out = await awsCallExpecting('ecs:UpdateService', NO_SERVICE, () => this.aws.ecs.send(new UpdateServiceCommand(scaleToZeroInput(plan)), { abortSignal: o.signal }));
    return { existed: 'ok' in out };
  }

  /** Deletes the service (force: without scaling it to zero first) and nothing else. `existed:
   *  false`: it was already gone, so a repeated teardown succeeds. */
  async teardown(plan: EcsRunPlan, o: { readonly signal?: AbortSignal } = {}): Promise<{ readonly existed: boolean }> {
    this.check(plan);
    const out = await awsCallExpecting('ecs:DeleteService', NO_SERVICE, () =>
      this.aws.ecs.send(new DeleteServiceCommand({ cluster: plan.service.cluster, service: plan.service.serviceName, force: true }), { abortSignal: o.signal }),
    );
    return { existed: 'ok' in out };
  }

  liveStatus(plan: EcsRunPlan, o: { readonly signal?: AbortSignal } = {}): Promise<EcsLiveStatus> {
    this.check(plan);
    return ecsLiveStatus(this.aws, plan, o.signal);
  }

  /** The last `lines` (at most 200) lines of the env's log group, oldest first. */
  logs(plan: EcsRunPlan, lines: number, o: { readonly signal?: AbortSignal } = {}): Promise<EcsLogLine[]> {
    this.check(plan);
    return ecsLogs(this.aws, plan, lines, o.signal);
  }

  /** Releases the SDK clients' sockets. */
  close(): void {
    closeAwsClients(this.aws);
  }
}
