/**
 * ECS (AWS JSON 1.1, `AmazonEC2ContainerServiceV20141113.<Op>`) in one account of the local AWS
 * API server: clusters, task definitions, services and the tasks they run (see
 * test/helpers/aws-api-server.ts for what is simulated and checked).
 */
import { randomUUID } from 'node:crypto';
import { arnIn, type AccountContext } from './account.js';
import { bad, epochSeconds, hex, list, now } from './codec.js';
import { findSecret } from './secrets.js';
import type { FakeDeployment, FakeRole, FakeService, FakeTask, FakeTaskDefinition } from './types.js';

export const EXECUTION_POLICY = /^arn:aws(-cn|-us-gov)?:iam::aws:policy\/service-role\/AmazonECSTaskExecutionRolePolicy$/;
/** Fargate's cpu units → the memory sizes (MiB) it allows. */
const FARGATE_SIZES: Record<string, (mem: number) => boolean> = {
  '256': (m) => [512, 1024, 2048].includes(m),
  '512': (m) => m >= 1024 && m <= 4096 && m % 1024 === 0,
  '1024': (m) => m >= 2048 && m <= 8192 && m % 1024 === 0,
  '2048': (m) => m >= 4096 && m <= 16384 && m % 1024 === 0,
  '4096': (m) => m >= 8192 && m <= 30720 && m % 1024 === 0,
  '8192': (m) => m >= 16384 && m <= 61440 && m % 4096 === 0,
  '16384': (m) => m >= 32768 && m <= 122880 && m % 8192 === 0,
};
const NAME = /^[A-Za-z0-9_-]{1,255}$/;

/** The registry an image pulls from: its first component when it holds a dot or a port or is
 *  `localhost` (as Docker reads references), else Docker Hub. */
function registryOf(image: string): string {
  const first = image.includes('/') ? image.slice(0, image.indexOf('/')).toLowerCase() : '';
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : 'docker.io';
}

const escapeRegExp = (s: string) => s.replace(/[.+?^$|()[\]{}\\]/g, '\\$&');

/** Whether one of the role's inline policies allows `action` on `resource` (and none denies it):
 *  `*` in an action or a resource matches any characters. */
function inlineAllows(role: FakeRole, action: string, resource: string): boolean {
  const glob = (pattern: string, value: string, flags = '') => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, flags).test(value);
  const matching = [...role.inline.values()].flatMap((doc) => list<any>(JSON.parse(doc).Statement)).filter(
    (st) => list<string>(st.Action).some((a) => glob(a, action, 'i')) && list<string>(st.Resource).some((r) => glob(r, resource)),
  );
  return matching.some((st) => st.Effect === 'Allow') && !matching.some((st) => st.Effect === 'Deny');
}

/** The task stops (once): `code` is ECS's stopCode, `reason` its stoppedReason. */
export function stopTask(t: FakeTask, code: string, reason: string): void {
  if (t.lastStatus === 'STOPPED') return;
  Object.assign(t, { lastStatus: 'STOPPED', desiredStatus: 'STOPPED', stopCode: code, stoppedReason: reason, stoppedAt: now() });
}

export function ecsApi(ctx: AccountContext): Record<string, (i: any) => unknown> {
  const { state, failing, held, startPolls, privateRegistries } = ctx;
  const arn = (service: string, resource: string) => arnIn(ctx, service, resource);

  const clusterOf = (nameOrArn: unknown) => {
    const name = String(nameOrArn ?? 'default').replace(/^arn:aws:ecs:[^:]+:\d+:cluster\//, '');
    const c = state.clusters.get(name);
    if (!c || c.status !== 'ACTIVE') throw bad('ClusterNotFoundException', 'Cluster not found.');
    return c;
  };
  const serviceOf = (cluster: string, nameOrArn: unknown, active = true) => {
    const name = String(nameOrArn ?? '').replace(/^arn:aws:ecs:[^:]+:\d+:service\/[^/]+\//, '');
    const s = state.services.get(`${cluster}/${name}`);
    if (!s) throw bad('ServiceNotFoundException', 'Service not found.');
    if (active && s.status !== 'ACTIVE') throw bad('ServiceNotActiveException', 'Service was not ACTIVE.');
    return s;
  };
  const taskDefinitionOf = (ref: unknown): FakeTaskDefinition | null => {
    const text = String(ref ?? '').replace(/^arn:aws:ecs:[^:]+:\d+:task-definition\//, '');
    const [family, rev] = text.split(':');
    const revisions = state.taskDefinitions.get(family ?? '') ?? [];
    if (rev !== undefined) return revisions.find((r) => r.revision === Number(rev)) ?? null;
    return [...revisions].reverse().find((r) => r.status === 'ACTIVE') ?? null;
  };

  /** Why a task of this definition cannot start, as AWS would say it, or null. */
  const launchFailure = (td: FakeTaskDefinition, image: string): string | null => {
    const failed = failing.get(image);
    if (failed) return failed;
    const roleArn: string = td.input.executionRoleArn;
    const role = [...state.roles.values()].find((r) => r.Arn === roleArn);
    const trusts = role && /"Service"\s*:\s*(\[[^\]]*)?"ecs-tasks\.amazonaws\.com"/.test(role.AssumeRolePolicyDocument) && /sts:AssumeRole/.test(role.AssumeRolePolicyDocument);
    if (!trusts) return `ECS was unable to assume the role '${roleArn}' that was provided for this task. Please verify that the role being passed has the proper trust relationship and permissions and that your IAM user has permissions to pass this role.`;
    const group: string = td.input.containerDefinitions[0].logConfiguration.options['awslogs-group'];
    if (![...role.policies].some((p) => EXECUTION_POLICY.test(p))) return `ResourceInitializationError: failed to validate logger args: create stream has been retried 1 times: failed to create Cloudwatch log stream: AccessDeniedException: User is not authorized to perform: logs:CreateLogStream on resource ${group}`;
    if (!state.logGroups.has(group)) return 'ResourceInitializationError: failed to validate logger args: create stream has been retried 1 times: failed to create Cloudwatch log stream: ResourceNotFoundException: The specified log group does not exist.';
    return pullFailure(td, image, role);
  };

  /** Why the image of a private registry cannot be pulled, as AWS says it, or null: the container
   *  must name a secret of this account (`repositoryCredentials`) that the execution role may read
   *  and whose value is the registry's login. */
  const pullFailure = (td: FakeTaskDefinition, image: string, role: FakeRole): string | null => {
    const server = registryOf(image);
    const login = privateRegistries.get(server);
    if (!login) return null;
    const ref: unknown = td.input.containerDefinitions[0].repositoryCredentials?.credentialsParameter;
    const unauthorized = (how: string) =>
      `CannotPullContainerError: pull image manifest has been retried 5 time(s): failed to resolve ref ${image}: failed to authorize: failed to fetch ${how} token: unexpected status from GET request to https://${server}/token: 401 Unauthorized`;
    if (ref === undefined) return unauthorized('anonymous');
    const asm = 'ResourceInitializationError: unable to pull secrets or registry auth: execution resource retrieval failed: unable to retrieve secret from asm: service call has been retried 1 time(s)';
    const secret = findSecret(ctx, ref);
    if (!secret) return `${asm}: ResourceNotFoundException: Secrets Manager can't find the specified secret.`;
    if (!inlineAllows(role, 'secretsmanager:GetSecretValue', secret.arn)) {
      return `${asm}: AccessDeniedException: User: arn:aws:sts::${ctx.accountId}:assumed-role/${role.RoleName}/ecs-task is not authorized to perform: secretsmanager:GetSecretValue on resource: ${secret.arn} because no identity-based policy allows the secretsmanager:GetSecretValue action`;
    }
    let value: { username?: unknown; password?: unknown } = {};
    try {
      value = JSON.parse(secret.versions.at(-1)!.value);
    } catch {
      return `${asm}: the secret ${secret.arn} is not a JSON object of username and password`;
    }
    return value.username === login.username && value.password === login.password ? null : unauthorized('oauth');
  };

  const startTask = (s: FakeService, d: FakeDeployment, t: FakeTask) => {
    const td = taskDefinitionOf(t.taskDefinitionArn)!;
    const failure = launchFailure(td, t.image);
    if (failure) {
      stopTask(t, 'TaskFailedToStart', failure);
      d.failedTasks += 1;
      if (s.deploymentConfiguration?.deploymentCircuitBreaker?.enable) {
        d.rolloutState = 'FAILED';
        d.rolloutStateReason = 'ECS deployment circuit breaker: tasks failed to start.';
      }
      s.events.unshift({ id: randomUUID(), createdAt: now(), message: `(service ${s.serviceName}) (task ${t.taskArn.split('/').pop()}) failed to start: ${failure}` });
      return;
    }
    const n = ctx.next();
    const subnets: string[] = s.networkConfiguration.awsvpcConfiguration.subnets;
    t.eni = { id: `eni-${hex(n)}`, subnetId: subnets[n % subnets.length]!, privateIp: `172.31.${n % 250}.${(n * 7) % 250 + 2}`, publicIp: `203.0.113.${(n % 254) + 1}` };
    Object.assign(t, { lastStatus: 'RUNNING', startedAt: now() });
    const options = td.input.containerDefinitions[0].logConfiguration.options;
    const streamName = `${options['awslogs-stream-prefix']}/${t.containerName}/${t.taskArn.split('/').pop()}`;
    state.logGroups.get(options['awslogs-group'])?.streams.set(streamName, { name: streamName, createdAt: now(), events: [] });
  };

  const tasksOf = (s: FakeService, d?: FakeDeployment) => [...state.tasks.values()].filter((t) => t.cluster === s.cluster && t.service === s.serviceName && (!d || t.deploymentId === d.id));
  const live = (t: FakeTask) => t.desiredStatus === 'RUNNING';

  /** Moves the service toward its desired state; `tick`: one DescribeServices answer has passed. */
  const reconcile = (s: FakeService, tick: boolean) => {
    if (s.status !== 'ACTIVE') return;
    if (tick) {
      for (const t of tasksOf(s)) {
        if (t.lastStatus !== 'PROVISIONING' || !live(t) || held.has(t.image)) continue;
        if (t.pendingReads > 0) t.pendingReads -= 1;
        else startTask(s, s.deployments.find((d) => d.id === t.deploymentId)!, t);
      }
    }
    const primary = s.deployments.find((d) => d.status === 'PRIMARY')!;
    const mine = tasksOf(s, primary).filter(live);
    if (mine.length < primary.desiredCount && primary.rolloutState !== 'FAILED') {
      const td = taskDefinitionOf(primary.taskDefinition)!;
      const container = td.input.containerDefinitions[0];
      for (let i = mine.length; i < primary.desiredCount; i++) {
        const id = randomUUID().replace(/-/g, '');
        const t: FakeTask = {
          taskArn: arn('ecs', `task/${s.cluster}/${id}`), cluster: s.cluster, service: s.serviceName, deploymentId: primary.id, taskDefinitionArn: td.arn,
          containerName: container.name, image: container.image, lastStatus: 'PROVISIONING', desiredStatus: 'RUNNING', pendingReads: startPolls,
          stoppedReason: null, stopCode: null, eni: null, createdAt: now(), startedAt: null, stoppedAt: null,
        };
        state.tasks.set(t.taskArn, t);
        if (startPolls === 0 && !held.has(t.image)) startTask(s, primary, t);
      }
    }
    for (const t of tasksOf(s, primary).filter(live).slice(primary.desiredCount)) stopTask(t, 'ServiceSchedulerInitiated', `Scaling activity initiated by (deployment ${primary.id})`);
    const running = tasksOf(s, primary).filter((t) => t.lastStatus === 'RUNNING').length;
    const pending = tasksOf(s, primary).filter((t) => t.lastStatus === 'PROVISIONING' && live(t)).length;
    if (running === primary.desiredCount && pending === 0 && primary.rolloutState !== 'FAILED') {
      for (const old of s.deployments.filter((d) => d !== primary)) {
        for (const t of tasksOf(s, old)) stopTask(t, 'ServiceSchedulerInitiated', `Task stopped by (deployment ${primary.id})`);
      }
      s.deployments = [primary];
      if (primary.rolloutState !== 'COMPLETED') {
        primary.rolloutState = 'COMPLETED';
        primary.rolloutStateReason = 'ECS deployment completed.';
        s.events.unshift({ id: randomUUID(), createdAt: now(), message: `(service ${s.serviceName}) has reached a steady state.` });
      }
    }
  };

  const newDeployment = (s: FakeService, taskDefinition: string, desiredCount: number): FakeDeployment => {
    for (const d of s.deployments) d.status = 'ACTIVE';
    const d: FakeDeployment = { id: `ecs-svc/${String(ctx.next()).padStart(19, '0')}`, status: 'PRIMARY', taskDefinition, desiredCount, failedTasks: 0, rolloutState: 'IN_PROGRESS', rolloutStateReason: 'ECS deployment in progress.', createdAt: now(), updatedAt: now() };
    s.deployments.unshift(d);
    return d;
  };

  const deploymentJson = (s: FakeService, d: FakeDeployment) => {
    const mine = tasksOf(s, d).filter(live);
    return {
      id: d.id, status: d.status, taskDefinition: d.taskDefinition, desiredCount: d.desiredCount,
      runningCount: mine.filter((t) => t.lastStatus === 'RUNNING').length, pendingCount: mine.filter((t) => t.lastStatus === 'PROVISIONING').length,
      failedTasks: d.failedTasks, launchType: s.launchType, networkConfiguration: s.networkConfiguration,
      rolloutState: d.rolloutState, rolloutStateReason: d.rolloutStateReason, createdAt: epochSeconds(d.createdAt), updatedAt: epochSeconds(d.updatedAt),
    };
  };
  const serviceJson = (s: FakeService) => {
    const deployments = s.deployments.map((d) => deploymentJson(s, d));
    return {
      serviceArn: s.serviceArn, serviceName: s.serviceName, clusterArn: arn('ecs', `cluster/${s.cluster}`), status: s.status,
      desiredCount: s.desiredCount, runningCount: deployments.reduce((n, d) => n + d.runningCount, 0), pendingCount: deployments.reduce((n, d) => n + d.pendingCount, 0),
      launchType: s.launchType, taskDefinition: s.taskDefinition, deploymentConfiguration: s.deploymentConfiguration, networkConfiguration: s.networkConfiguration,
      deployments, events: s.events.slice(0, 100).map((e) => ({ ...e, createdAt: epochSeconds(e.createdAt) })), createdAt: epochSeconds(s.createdAt), schedulingStrategy: 'REPLICA',
    };
  };
  const taskJson = (t: FakeTask) => ({
    taskArn: t.taskArn, clusterArn: arn('ecs', `cluster/${t.cluster}`), taskDefinitionArn: t.taskDefinitionArn, group: `service:${t.service}`, startedBy: t.deploymentId,
    lastStatus: t.lastStatus, desiredStatus: t.desiredStatus, launchType: 'FARGATE', cpu: '256', memory: '512', healthStatus: 'UNKNOWN',
    containers: [{ containerArn: arn('ecs', `container/${t.cluster}/${t.taskArn.split('/').pop()}/${t.containerName}`), taskArn: t.taskArn, name: t.containerName, image: t.image, lastStatus: t.lastStatus,
      ...(t.stopCode === 'TaskFailedToStart' ? { reason: t.stoppedReason } : {}), networkInterfaces: t.eni ? [{ attachmentId: `att-${t.eni.id}`, privateIpv4Address: t.eni.privateIp }] : [] }],
    attachments: t.eni ? [{ id: `att-${t.eni.id}`, type: 'ElasticNetworkInterface', status: t.lastStatus === 'STOPPED' ? 'DELETED' : 'ATTACHED',
      details: [{ name: 'subnetId', value: t.eni.subnetId }, { name: 'networkInterfaceId', value: t.eni.id }, { name: 'privateIPv4Address', value: t.eni.privateIp }] }] : [],
    createdAt: epochSeconds(t.createdAt), startedAt: epochSeconds(t.startedAt), stoppedAt: epochSeconds(t.stoppedAt),
    ...(t.stoppedReason ? { stoppedReason: t.stoppedReason, stopCode: t.stopCode } : {}),
  });

  const checkTaskDefinition = (i: any) => {
    if (typeof i.family !== 'string' || !NAME.test(i.family)) throw bad('ClientException', 'Family contains invalid characters or is longer than 255 characters.');
    const defs = i.containerDefinitions;
    if (!Array.isArray(defs) || defs.length === 0) throw bad('ClientException', 'Container list cannot be empty.');
    if (list<string>(i.requiresCompatibilities).includes('FARGATE')) {
      if (i.networkMode !== 'awsvpc') throw bad('ClientException', 'Fargate only supports network mode ‘awsvpc’.');
      if (typeof i.cpu !== 'string' || typeof i.memory !== 'string') throw bad('ClientException', "Fargate requires that 'cpu' and 'memory' be defined at the task level.");
      if (!FARGATE_SIZES[i.cpu]?.(Number(i.memory))) throw bad('ClientException', `No Fargate configuration exists for given values: ${i.cpu} CPU, ${i.memory} memory. See the Amazon ECS documentation for the valid values.`);
    }
    for (const c of defs) {
      if (!c.name || !NAME.test(c.name)) throw bad('ClientException', 'Container.name contains invalid characters.');
      if (!c.image) throw bad('ClientException', 'Container.image should not be null or empty.');
      for (const p of c.portMappings ?? []) {
        if (i.networkMode === 'awsvpc' && p.hostPort !== undefined && p.hostPort !== p.containerPort) throw bad('ClientException', 'When networkMode=awsvpc, the host ports and container ports in port mappings must match.');
      }
      const log = c.logConfiguration;
      if (!log) throw bad('ClientException', 'The awslogs log configuration is required by this stand-in.');
      if (log.logDriver !== 'awslogs') throw bad('ClientException', `Log driver ${log.logDriver} is not supported here: the stand-in expects awslogs.`);
      const opts = log.options ?? {};
      for (const k of ['awslogs-group', 'awslogs-region', 'awslogs-stream-prefix']) if (!opts[k]) throw bad('ClientException', `Log driver awslogs requires option ${k}.`);
      if (!i.executionRoleArn) throw bad('ClientException', 'Fargate requires task definition to have execution role ARN to support log driver awslogs.');
    }
    if (i.executionRoleArn && !/^arn:aws(-cn|-us-gov)?:iam::\d{12}:role\/[\w+=,.@/-]+$/.test(i.executionRoleArn)) throw bad('ClientException', 'Role is not valid');
  };

  const ecs: Record<string, (i: any) => unknown> = {
    CreateCluster(i) {
      const name = i.clusterName ?? 'default';
      if (!NAME.test(name)) throw bad('InvalidParameterException', 'Cluster name contains invalid characters.');
      const c = state.clusters.get(name) ?? { clusterName: name, clusterArn: arn('ecs', `cluster/${name}`), status: 'ACTIVE' as const };
      c.status = 'ACTIVE';
      state.clusters.set(name, c);
      return { cluster: { ...c, registeredContainerInstancesCount: 0, runningTasksCount: 0, pendingTasksCount: 0, activeServicesCount: 0 } };
    },
    DescribeClusters(i) {
      const names = list<string>(i.clusters ?? ['default']);
      const found = names.map((n) => state.clusters.get(n.replace(/^arn:aws:ecs:[^:]+:\d+:cluster\//, '')));
      return {
        clusters: found.filter((c) => c).map((c) => ({ ...c })),
        failures: names.filter((_, k) => !found[k]).map((n) => ({ arn: n.startsWith('arn:') ? n : arn('ecs', `cluster/${n}`), reason: 'MISSING' })),
      };
    },
    RegisterTaskDefinition(i) {
      checkTaskDefinition(i);
      const revisions = state.taskDefinitions.get(i.family) ?? [];
      const revision = revisions.length + 1;
      const td: FakeTaskDefinition = { arn: arn('ecs', `task-definition/${i.family}:${revision}`), family: i.family, revision, status: 'ACTIVE', input: i, registeredAt: now() };
      state.taskDefinitions.set(i.family, [...revisions, td]);
      const { tags, ...def } = i;
      return { taskDefinition: { ...def, taskDefinitionArn: td.arn, revision, status: 'ACTIVE', compatibilities: ['EC2', 'FARGATE'], registeredAt: epochSeconds(td.registeredAt) }, tags };
    },
    CreateService(i) {
      const cluster = clusterOf(i.cluster);
      if (!i.serviceName || !NAME.test(i.serviceName)) throw bad('InvalidParameterException', 'Service name contains invalid characters.');
      const existing = state.services.get(`${cluster.clusterName}/${i.serviceName}`);
      if (existing?.status === 'ACTIVE') throw bad('InvalidParameterException', 'Creation of service was not idempotent.');
      if (existing?.status === 'DRAINING') throw bad('InvalidParameterException', 'Unable to Start a service that is still Draining.');
      const td = taskDefinitionOf(i.taskDefinition);
      if (!td || td.status !== 'ACTIVE') throw bad('ClientException', 'TaskDefinition not found.');
      if (i.launchType !== 'FARGATE') throw bad('InvalidParameterException', 'The stand-in runs services with launchType FARGATE only.');
      const vpc = i.networkConfiguration?.awsvpcConfiguration;
      if (!vpc) throw bad('InvalidParameterException', 'Network Configuration must be provided when networkMode \'awsvpc\' is specified.');
      checkNetwork(vpc);
      const desiredCount = i.desiredCount ?? 0;
      const s: FakeService = {
        serviceArn: arn('ecs', `service/${cluster.clusterName}/${i.serviceName}`), serviceName: i.serviceName, cluster: cluster.clusterName, status: 'ACTIVE', desiredCount,
        taskDefinition: td.arn, launchType: 'FARGATE', networkConfiguration: i.networkConfiguration, deploymentConfiguration: i.deploymentConfiguration ?? {},
        deployments: [], events: [], createdAt: now(), tags: i.tags ?? [],
      };
      state.services.set(`${cluster.clusterName}/${i.serviceName}`, s);
      newDeployment(s, td.arn, desiredCount);
      reconcile(s, false);
      return { service: serviceJson(s) };
    },
    UpdateService(i) {
      const cluster = clusterOf(i.cluster);
      const s = serviceOf(cluster.clusterName, i.service);
      if (i.networkConfiguration) {
        checkNetwork(i.networkConfiguration.awsvpcConfiguration ?? {});
        s.networkConfiguration = i.networkConfiguration;
      }
      if (i.deploymentConfiguration) s.deploymentConfiguration = i.deploymentConfiguration;
      if (i.desiredCount !== undefined) s.desiredCount = i.desiredCount;
      let primary = s.deployments.find((d) => d.status === 'PRIMARY')!;
      if (i.taskDefinition !== undefined) {
        const td = taskDefinitionOf(i.taskDefinition);
        if (!td || td.status !== 'ACTIVE') throw bad('ClientException', 'TaskDefinition not found.');
        if (td.arn !== primary.taskDefinition || i.forceNewDeployment) primary = newDeployment(s, td.arn, s.desiredCount);
        s.taskDefinition = td.arn;
      } else if (i.forceNewDeployment) primary = newDeployment(s, s.taskDefinition, s.desiredCount);
      primary.desiredCount = s.desiredCount;
      primary.updatedAt = now();
      reconcile(s, false);
      return { service: serviceJson(s) };
    },
    DescribeServices(i) {
      const cluster = clusterOf(i.cluster);
      const services: unknown[] = [];
      const failures: unknown[] = [];
      for (const name of list<string>(i.services)) {
        const s = state.services.get(`${cluster.clusterName}/${name.replace(/^arn:.*\//, '')}`);
        if (!s) {
          failures.push({ arn: arn('ecs', `service/${cluster.clusterName}/${name}`), reason: 'MISSING' });
          continue;
        }
        reconcile(s, true);
        services.push(serviceJson(s));
      }
      return { services, failures };
    },
    DeleteService(i) {
      const cluster = clusterOf(i.cluster);
      const s = serviceOf(cluster.clusterName, i.service);
      if (s.desiredCount > 0 && !i.force) throw bad('InvalidParameterException', 'The service cannot be stopped while it is scaled above 0.');
      for (const t of tasksOf(s)) stopTask(t, 'ServiceSchedulerInitiated', 'Service deletion');
      const answer = { service: { ...serviceJson(s), status: 'DRAINING', desiredCount: 0 } };
      s.status = 'INACTIVE';
      s.desiredCount = 0;
      return answer;
    },
    ListTasks(i) {
      const cluster = clusterOf(i.cluster);
      const s = i.serviceName !== undefined ? serviceOf(cluster.clusterName, i.serviceName, false) : null;
      const desired = i.desiredStatus ?? 'RUNNING';
      const tasks = [...state.tasks.values()].filter((t) => t.cluster === cluster.clusterName && (!s || t.service === s.serviceName) && t.desiredStatus === desired);
      return { taskArns: tasks.slice(0, i.maxResults ?? 100).map((t) => t.taskArn) };
    },
    DescribeTasks(i) {
      const cluster = clusterOf(i.cluster);
      const refs = list<string>(i.tasks);
      if (refs.length === 0 || refs.length > 100) throw bad('InvalidParameterException', 'Tasks cannot be empty or over 100.');
      const tasks: unknown[] = [];
      const failures: unknown[] = [];
      for (const ref of refs) {
        const t = state.tasks.get(ref) ?? [...state.tasks.values()].find((x) => x.taskArn.endsWith(`/${ref}`));
        if (t && t.cluster === cluster.clusterName) tasks.push(taskJson(t));
        else failures.push({ arn: ref, reason: 'MISSING' });
      }
      return { tasks, failures };
    },
  };

  const checkNetwork = (vpc: any) => {
    const subnets = list<string>(vpc.subnets);
    if (subnets.length === 0) throw bad('InvalidParameterException', 'subnets can not be empty.');
    for (const id of subnets) if (!state.subnets.some((s) => s.subnetId === id)) throw bad('InvalidParameterException', `Error retrieving subnet information for [${id}]: The subnet ID '${id}' does not exist (Service: AmazonEC2; Status Code: 400; Error Code: InvalidSubnetID.NotFound)`);
    for (const id of list<string>(vpc.securityGroups)) if (!state.securityGroups.has(id)) throw bad('InvalidParameterException', `Error retrieving security group information for [${id}]: The security group '${id}' does not exist`);
    if (vpc.assignPublicIp !== 'ENABLED') throw bad('InvalidParameterException', 'The stand-in expects assignPublicIp ENABLED: tasks in the default VPC need a public IP to pull images and be reached.');
  };

  return ecs;
}
