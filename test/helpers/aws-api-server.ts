/**
 * A local stand-in for the AWS APIs the ECS target calls, for its contract tests: one endpoint on
 * 127.0.0.1 (ephemeral port) speaking each service's documented protocol, keeping state, and
 * checking what the caller sends. Point every SDK client at `url` (`endpoint`) with the credentials
 * it was started with.
 *
 * Protocols (what the SDK v3 clients send and parse):
 *  - ECS and CloudWatch Logs: AWS JSON 1.1 — `POST /`, `Content-Type: application/x-amz-json-1.1`,
 *    `X-Amz-Target: AmazonEC2ContainerServiceV20141113.<Op>` / `Logs_20140328.<Op>`, a JSON body;
 *    errors are HTTP 4xx with `{"__type": <code>, "message"}` and `x-amzn-ErrorType`.
 *    Timestamps are epoch seconds (ECS) or epoch milliseconds (Logs' longs), as documented.
 *  - IAM: AWS Query — form-encoded `Action=<Op>&Version=2010-05-08&…` (lists as `X.member.N`);
 *    answers `<OpResponse><OpResult>…</OpResult><ResponseMetadata/>`, lists as `<member>`;
 *    errors `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>`.
 *  - EC2: EC2 Query — form-encoded `Action=<Op>&Version=2016-11-15&…` (lists flattened `X.N`);
 *    answers `<OpResponse><requestId/>…</OpResponse>` with lower-camel names and `<item>` lists;
 *    errors `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`.
 * IAM and EC2 are told apart by `Version`, and the credential scope's service must match.
 *
 * Authentication: every request must carry a SigV4 `Authorization` header for the configured
 * access key, and its signature is verified with the configured secret (the canonical request is
 * rebuilt from the method, path, query, signed headers and the body's SHA-256). Missing → 403
 * MissingAuthenticationToken(Exception); unknown key or session token → 403
 * UnrecognizedClientException / InvalidClientTokenId / AuthFailure; a bad signature → 403
 * InvalidSignatureException / SignatureDoesNotMatch / AuthFailure (JSON / IAM / EC2).
 *
 * The account has a default VPC (vpc-0d3fa0175e11a0001, three subnets) unless `defaultVpc: false`.
 * Checks beyond type and presence: RegisterTaskDefinition needs a Fargate-valid cpu/memory pair,
 * awsvpc, an execution role ARN, an awslogs log configuration with group, region and stream prefix,
 * and host port = container port; CreateService needs an existing ACTIVE cluster and task
 * definition, FARGATE, subnets and security groups that exist, and assignPublicIp ENABLED.
 *
 * Tasks: a service's PRIMARY deployment gets tasks up to its desired count. A task is PROVISIONING
 * in the first `startPolls` DescribeServices answers after it was made (default 0), then RUNNING
 * with an ENI and a public IP in 203.0.113.0/24 (TEST-NET-3) — or STOPPED (stopCode TaskFailedToStart) with a reason: the one
 * `failImage` gave its image, or what AWS says when the execution role is missing, does not trust
 * ecs-tasks.amazonaws.com, lacks AmazonECSTaskExecutionRolePolicy, or the log group is missing.
 * With the circuit breaker on, a deployment's first failed task marks it FAILED (AWS waits for a
 * threshold, then rolls back; no rollback is simulated: the older deployment keeps its tasks).
 * When the PRIMARY is steady, older deployments' tasks stop and the deployments go. A running task
 * writes its log stream `<prefix>/<container>/<task id>`. DeleteService stops the tasks and leaves
 * the service INACTIVE at once (AWS drains first).
 *
 * Every request is recorded in `calls` (service, operation, parsed input, HTTP status, error code),
 * refused ones included.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';

export type AwsService = 'ecs' | 'logs' | 'iam' | 'ec2';

export interface AwsCall {
  readonly service: AwsService | 'unknown';
  readonly operation: string;
  /** JSON protocols: the body; Query protocols: the form, nested (`Filter.1.Value.1` → `Filter[0].Value[0]`). */
  readonly input: any;
  readonly status: number;
  readonly error: string | null;
}

export interface FakeRole {
  RoleName: string;
  RoleId: string;
  Arn: string;
  Path: string;
  AssumeRolePolicyDocument: string;
  Description?: string;
  CreateDate: Date;
  policies: Set<string>;
}
export interface FakeLogStream { name: string; createdAt: number; events: { timestamp: number; message: string; ingestionTime: number }[] }
export interface FakeLogGroup { name: string; createdAt: number; streams: Map<string, FakeLogStream>; tags: Record<string, string> }
export interface FakeSecurityGroup {
  groupId: string;
  groupName: string;
  description: string;
  vpcId: string;
  ingress: { protocol: string; from: number | null; to: number | null; cidrs: string[] }[];
  tags: Record<string, string>;
}
export interface FakeTaskDefinition { arn: string; family: string; revision: number; status: 'ACTIVE' | 'INACTIVE'; input: any; registeredAt: number }
export interface FakeDeployment {
  id: string;
  status: 'PRIMARY' | 'ACTIVE';
  taskDefinition: string;
  desiredCount: number;
  failedTasks: number;
  rolloutState: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  rolloutStateReason: string;
  createdAt: number;
  updatedAt: number;
}
export interface FakeService {
  serviceArn: string;
  serviceName: string;
  cluster: string;
  status: 'ACTIVE' | 'DRAINING' | 'INACTIVE';
  desiredCount: number;
  taskDefinition: string;
  launchType: string;
  networkConfiguration: any;
  deploymentConfiguration: any;
  deployments: FakeDeployment[];
  events: { id: string; createdAt: number; message: string }[];
  createdAt: number;
  tags: any[];
}
export interface FakeTask {
  taskArn: string;
  cluster: string;
  service: string;
  deploymentId: string;
  taskDefinitionArn: string;
  containerName: string;
  image: string;
  lastStatus: 'PROVISIONING' | 'RUNNING' | 'STOPPED';
  desiredStatus: 'RUNNING' | 'STOPPED';
  /** DescribeServices answers left before it starts. */
  pendingReads: number;
  stoppedReason: string | null;
  stopCode: string | null;
  eni: { id: string; subnetId: string; privateIp: string; publicIp: string } | null;
  createdAt: number;
  startedAt: number | null;
  stoppedAt: number | null;
}

export interface FakeAwsState {
  readonly clusters: Map<string, { clusterName: string; clusterArn: string; status: 'ACTIVE' | 'INACTIVE' }>;
  readonly roles: Map<string, FakeRole>;
  readonly logGroups: Map<string, FakeLogGroup>;
  readonly vpcs: { vpcId: string; cidrBlock: string; isDefault: boolean }[];
  readonly subnets: { subnetId: string; vpcId: string; availabilityZone: string; cidrBlock: string }[];
  readonly securityGroups: Map<string, FakeSecurityGroup>;
  /** By family, revisions in order. */
  readonly taskDefinitions: Map<string, FakeTaskDefinition[]>;
  /** By `<cluster>/<service name>`. */
  readonly services: Map<string, FakeService>;
  readonly tasks: Map<string, FakeTask>;
}

export interface FakeAws {
  readonly url: string;
  readonly region: string;
  readonly accountId: string;
  readonly calls: AwsCall[];
  readonly state: FakeAwsState;
  /** Tasks of `image` stop before they run, with `reason` (e.g. a CannotPullContainerError). */
  failImage(image: string, reason: string): void;
  /** Lines the app printed, into `stream` of `group` (default: the group's newest stream). */
  putLogs(group: string, lines: readonly string[], stream?: string): void;
  /** Every call as `<service>:<Operation>`, in order. */
  operations(): string[];
  close(): Promise<void>;
}

export interface AwsApiServerOptions {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly region?: string;
  readonly accountId?: string;
  readonly defaultVpc?: boolean;
  readonly startPolls?: number;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
const bad = (code: string, message: string) => new ApiError(400, code, message);

const EXECUTION_POLICY = /^arn:aws(-cn|-us-gov)?:iam::aws:policy\/service-role\/AmazonECSTaskExecutionRolePolicy$/;
const MANAGED_POLICY = /^arn:aws(-cn|-us-gov)?:iam::aws:policy\/[\w+=,.@/-]+$/;
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
const now = () => Date.now();
const epochSeconds = (ms: number | null) => (ms === null ? undefined : ms / 1000);

// ---------------------------------------------------------------------------------------------
// SigV4

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

type AuthResult = { ok: true } | { ok: false; kind: 'missing' | 'key' | 'signature'; message: string };

function verifySigV4(req: http.IncomingMessage, body: Buffer, service: string, o: AwsApiServerOptions): AuthResult {
  const auth = req.headers.authorization;
  if (!auth) return { ok: false, kind: 'missing', message: 'Missing Authentication Token' };
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return { ok: false, kind: 'signature', message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters` };
  const [, keyId, date, region, scopeService, signedHeaders, signature] = m as unknown as string[];
  if (keyId !== o.accessKeyId) return { ok: false, kind: 'key', message: 'The security token included in the request is invalid.' };
  if (scopeService !== service) return { ok: false, kind: 'signature', message: `Credential should be scoped to correct service: '${service}'.` };
  const token = req.headers['x-amz-security-token'];
  if ((o.sessionToken ?? undefined) !== token) return { ok: false, kind: 'key', message: 'The security token included in the request is invalid.' };
  const signed = signedHeaders!.split(';');
  const amzDate = req.headers['x-amz-date'];
  if (typeof amzDate !== 'string' || !amzDate.startsWith(date!) || !signed.includes('host') || !signed.includes('x-amz-date') || (token !== undefined && !signed.includes('x-amz-security-token'))) {
    return { ok: false, kind: 'signature', message: 'The request signature does not sign host, x-amz-date (and the session token)' };
  }
  const url = new URL(req.url ?? '/', 'http://x');
  const query = [...url.searchParams].map(([k, v]) => [rfc3986(k), rfc3986(v)]).sort(([a, b], [c, d]) => (a! < c! ? -1 : a! > c! ? 1 : b! < d! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const headerValue = (name: string) => {
    const v = req.headers[name];
    return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');
  };
  const payloadHash = typeof req.headers['x-amz-content-sha256'] === 'string' ? req.headers['x-amz-content-sha256'] : sha256(body);
  if (payloadHash !== sha256(body)) return { ok: false, kind: 'signature', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  const canonical = [req.method, url.pathname, query, signed.map((h) => `${h}:${headerValue(h)}\n`).join(''), signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${scopeService}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${o.secretAccessKey}`, date!), region!), scopeService!), 'aws4_request');
  if (createHmac('sha256', key).update(stringToSign).digest('hex') !== signature) {
    return { ok: false, kind: 'signature', message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.' };
  }
  return { ok: true };
}

// ---------------------------------------------------------------------------------------------
// Query protocol codecs

/** `Filter.1.Value.1=x` → `{Filter: [{Value: ['x']}]}`; IAM's `.member.` is dropped. */
export function parseQueryForm(form: URLSearchParams): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of form) {
    if (key === 'Action' || key === 'Version') continue;
    const parts = key.split('.').filter((p) => p !== 'member');
    let node: any = root;
    parts.forEach((p, i) => {
      const k = /^\d+$/.test(p) ? Number(p) - 1 : p;
      if (i === parts.length - 1) node[k] = value;
      else node = node[k] ??= /^\d+$/.test(parts[i + 1]!) ? [] : {};
    });
  }
  return root;
}

type Xml = string | number | boolean | Date | null | undefined | Xml[] | { [k: string]: Xml };
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
function xml(tag: string, v: Xml, item: string): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return `<${tag}>${v.map((x) => xml(item, x, item)).join('')}</${tag}>`;
  if (v instanceof Date) return `<${tag}>${v.toISOString()}</${tag}>`;
  if (typeof v === 'object') return `<${tag}>${Object.entries(v).map(([k, x]) => xml(k, x, item)).join('')}</${tag}>`;
  return `<${tag}>${esc(String(v))}</${tag}>`;
}

const list = <T>(v: unknown): T[] => (v === undefined ? [] : Array.isArray(v) ? (v as T[]) : [v as T]);

/** EC2 filters: each named filter must match one of its values; names outside `fields` are refused. */
function matches(filters: unknown, fields: Record<string, readonly string[]>): boolean {
  for (const f of list<{ Name?: string; Value?: string[] }>(filters)) {
    const have = fields[f.Name ?? ''];
    if (!have) throw bad('InvalidParameterValue', `The filter '${f.Name}' is invalid`);
    if (!list<string>(f.Value).some((v) => have.includes(v))) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------

export async function startAwsApiServer(o: AwsApiServerOptions): Promise<FakeAws> {
  const region = o.region ?? 'eu-central-1';
  const accountId = o.accountId ?? '123456789012';
  const startPolls = o.startPolls ?? 0;
  const calls: AwsCall[] = [];
  const failing = new Map<string, string>();
  const state: FakeAwsState = {
    clusters: new Map(),
    roles: new Map(),
    logGroups: new Map(),
    vpcs: [],
    subnets: [],
    securityGroups: new Map(),
    taskDefinitions: new Map(),
    services: new Map(),
    tasks: new Map(),
  };
  if (o.defaultVpc !== false) {
    state.vpcs.push({ vpcId: 'vpc-0d3fa0175e11a0001', cidrBlock: '172.31.0.0/16', isDefault: true });
    ['a', 'b', 'c'].forEach((az, i) => state.subnets.push({ subnetId: `subnet-0d3fa0175e11a000${i + 1}`, vpcId: 'vpc-0d3fa0175e11a0001', availabilityZone: `${region}${az}`, cidrBlock: `172.31.${i * 16}.0/20` }));
  }
  let serial = 0;
  const hex = (n: number) => n.toString(16).padStart(17, '0');
  const arn = (service: string, resource: string) => `arn:aws:${service}:${region}:${accountId}:${resource}`;

  // -------------------------------------------------------------------------------------------
  // ECS: tasks

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
    return null;
  };

  const stopTask = (t: FakeTask, code: string, reason: string) => {
    if (t.lastStatus === 'STOPPED') return;
    Object.assign(t, { lastStatus: 'STOPPED', desiredStatus: 'STOPPED', stopCode: code, stoppedReason: reason, stoppedAt: now() });
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
    const n = ++serial;
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
        if (t.lastStatus !== 'PROVISIONING' || !live(t)) continue;
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
        if (startPolls === 0) startTask(s, primary, t);
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
    const d: FakeDeployment = { id: `ecs-svc/${String(++serial).padStart(19, '0')}`, status: 'PRIMARY', taskDefinition, desiredCount, failedTasks: 0, rolloutState: 'IN_PROGRESS', rolloutStateReason: 'ECS deployment in progress.', createdAt: now(), updatedAt: now() };
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

  // -------------------------------------------------------------------------------------------
  // CloudWatch Logs

  const groupOf = (name: unknown) => {
    const g = state.logGroups.get(String(name));
    if (!g) throw bad('ResourceNotFoundException', 'The specified log group does not exist.');
    return g;
  };
  const logs: Record<string, (i: any) => unknown> = {
    CreateLogGroup(i) {
      if (typeof i.logGroupName !== 'string' || !/^[.\-_/#A-Za-z0-9]{1,512}$/.test(i.logGroupName)) throw bad('InvalidParameterException', '1 validation error detected: Value at \'logGroupName\' failed to satisfy constraint');
      if (state.logGroups.has(i.logGroupName)) throw bad('ResourceAlreadyExistsException', 'The specified log group already exists');
      state.logGroups.set(i.logGroupName, { name: i.logGroupName, createdAt: now(), streams: new Map(), tags: i.tags ?? {} });
      return {};
    },
    DescribeLogStreams(i) {
      const g = groupOf(i.logGroupName);
      if (i.orderBy === 'LastEventTime' && i.logStreamNamePrefix) throw bad('InvalidParameterException', 'Cannot order by LastEventTime with a logStreamNamePrefix.');
      const limit = i.limit ?? 50;
      if (limit < 1 || limit > 50) throw bad('InvalidParameterException', 'limit must be between 1 and 50');
      const last = (s: FakeLogStream) => s.events.at(-1)?.timestamp ?? 0;
      let streams = [...g.streams.values()].filter((s) => !i.logStreamNamePrefix || s.name.startsWith(i.logStreamNamePrefix));
      streams.sort(i.orderBy === 'LastEventTime' ? (a, b) => last(a) - last(b) : (a, b) => (a.name < b.name ? -1 : 1));
      if (i.descending) streams = streams.reverse();
      return {
        logStreams: streams.slice(0, limit).map((s) => ({
          logStreamName: s.name, creationTime: s.createdAt, arn: arn('logs', `log-group:${g.name}:log-stream:${s.name}`), storedBytes: 0,
          ...(s.events.length > 0 ? { firstEventTimestamp: s.events[0]!.timestamp, lastEventTimestamp: last(s), lastIngestionTime: s.events.at(-1)!.ingestionTime } : {}),
        })),
      };
    },
    GetLogEvents(i) {
      const g = groupOf(i.logGroupName);
      const s = g.streams.get(i.logStreamName);
      if (!s) throw bad('ResourceNotFoundException', 'The specified log stream does not exist.');
      const limit = i.limit ?? 10000;
      if (limit < 1 || limit > 10000) throw bad('InvalidParameterException', 'limit must be between 1 and 10000');
      const events = i.startFromHead ? s.events.slice(0, limit) : s.events.slice(-limit);
      return { events, nextForwardToken: `f/${s.events.length}`, nextBackwardToken: `b/${Math.max(0, s.events.length - events.length)}` };
    },
  };

  // -------------------------------------------------------------------------------------------
  // IAM

  const roleOf = (name: unknown) => {
    const r = state.roles.get(String(name));
    if (!r) throw new ApiError(404, 'NoSuchEntity', `The role with name ${name} cannot be found.`);
    return r;
  };
  const roleXml = (r: FakeRole) => ({
    Path: r.Path, RoleName: r.RoleName, RoleId: r.RoleId, Arn: r.Arn, CreateDate: r.CreateDate,
    AssumeRolePolicyDocument: encodeURIComponent(r.AssumeRolePolicyDocument), Description: r.Description, MaxSessionDuration: 3600,
  });
  const iam: Record<string, (i: any) => Record<string, Xml> | null> = {
    GetRole(i) {
      return { Role: roleXml(roleOf(i.RoleName)) };
    },
    CreateRole(i) {
      if (typeof i.RoleName !== 'string' || !/^[\w+=,.@-]{1,64}$/.test(i.RoleName)) throw new ApiError(400, 'ValidationError', 'The specified value for roleName is invalid.');
      if (state.roles.has(i.RoleName)) throw new ApiError(409, 'EntityAlreadyExists', `Role with name ${i.RoleName} already exists.`);
      try {
        const doc = JSON.parse(i.AssumeRolePolicyDocument ?? '');
        if (!doc.Statement) throw new Error('no Statement');
      } catch {
        throw new ApiError(400, 'MalformedPolicyDocument', 'This policy contains invalid Json');
      }
      const r: FakeRole = {
        RoleName: i.RoleName, RoleId: `AROA${hex(++serial).toUpperCase()}`, Arn: `arn:aws:iam::${accountId}:role${i.Path ?? '/'}${i.RoleName}`, Path: i.Path ?? '/',
        AssumeRolePolicyDocument: i.AssumeRolePolicyDocument, Description: i.Description, CreateDate: new Date(), policies: new Set(),
      };
      state.roles.set(r.RoleName, r);
      return { Role: roleXml(r) };
    },
    AttachRolePolicy(i) {
      const r = roleOf(i.RoleName);
      if (typeof i.PolicyArn !== 'string' || !MANAGED_POLICY.test(i.PolicyArn)) throw new ApiError(404, 'NoSuchEntity', `Policy ${i.PolicyArn} does not exist or is not attachable.`);
      r.policies.add(i.PolicyArn);
      return null;
    },
  };

  // -------------------------------------------------------------------------------------------
  // EC2

  const groupXml = (g: FakeSecurityGroup) => ({
    ownerId: accountId, groupId: g.groupId, groupName: g.groupName, groupDescription: g.description, vpcId: g.vpcId,
    ipPermissions: g.ingress.map((p) => ({ ipProtocol: p.protocol, fromPort: p.from, toPort: p.to, groups: [], ipRanges: p.cidrs.map((c) => ({ cidrIp: c })), ipv6Ranges: [], prefixListIds: [] })),
    ipPermissionsEgress: [{ ipProtocol: '-1', groups: [], ipRanges: [{ cidrIp: '0.0.0.0/0' }], ipv6Ranges: [], prefixListIds: [] }],
    tagSet: Object.entries(g.tags).map(([key, value]) => ({ key, value })),
  });
  const ec2: Record<string, (i: any) => Record<string, Xml>> = {
    DescribeVpcs(i) {
      const vpcs = state.vpcs.filter((v) => (!i.VpcId || list<string>(i.VpcId).includes(v.vpcId)) && matches(i.Filter, { isDefault: [String(v.isDefault)], 'vpc-id': [v.vpcId] }));
      return { vpcSet: vpcs.map((v) => ({ vpcId: v.vpcId, ownerId: accountId, state: 'available', cidrBlock: v.cidrBlock, isDefault: v.isDefault, instanceTenancy: 'default' })) };
    },
    DescribeSubnets(i) {
      const subnets = state.subnets.filter((s) => (!i.SubnetId || list<string>(i.SubnetId).includes(s.subnetId)) && matches(i.Filter, { 'vpc-id': [s.vpcId], 'subnet-id': [s.subnetId], 'default-for-az': ['true'] }));
      return { subnetSet: subnets.map((s) => ({ subnetId: s.subnetId, vpcId: s.vpcId, state: 'available', availabilityZone: s.availabilityZone, cidrBlock: s.cidrBlock, defaultForAz: true, mapPublicIpOnLaunch: true, availableIpAddressCount: 4091 })) };
    },
    DescribeSecurityGroups(i) {
      for (const id of list<string>(i.GroupId)) if (!state.securityGroups.has(id)) throw bad('InvalidGroup.NotFound', `The security group '${id}' does not exist`);
      const groups = [...state.securityGroups.values()].filter(
        (g) => (!i.GroupId || list<string>(i.GroupId).includes(g.groupId)) && (!i.GroupName || list<string>(i.GroupName).includes(g.groupName)) &&
          matches(i.Filter, { 'vpc-id': [g.vpcId], 'group-name': [g.groupName], 'group-id': [g.groupId] }),
      );
      return { securityGroupInfo: groups.map(groupXml) };
    },
    CreateSecurityGroup(i) {
      if (!i.GroupName) throw bad('MissingParameter', 'The request must contain the parameter groupName');
      if (!i.GroupDescription) throw bad('MissingParameter', 'The request must contain the parameter groupDescription');
      if (/^sg-/i.test(i.GroupName)) throw bad('InvalidParameterValue', 'Group names may not be in the format sg-*');
      const vpcId = i.VpcId ?? state.vpcs.find((v) => v.isDefault)?.vpcId;
      if (!vpcId || !state.vpcs.some((v) => v.vpcId === vpcId)) throw bad(i.VpcId ? 'InvalidVpcID.NotFound' : 'VPCIdNotSpecified', i.VpcId ? `The vpc ID '${i.VpcId}' does not exist` : 'No default VPC for this user');
      if ([...state.securityGroups.values()].some((g) => g.vpcId === vpcId && g.groupName === i.GroupName)) throw bad('InvalidGroup.Duplicate', `The security group '${i.GroupName}' already exists for VPC '${vpcId}'`);
      const tags: Record<string, string> = {};
      for (const spec of list<any>(i.TagSpecification)) for (const t of list<any>(spec.Tag)) tags[t.Key] = t.Value;
      const g: FakeSecurityGroup = { groupId: `sg-${hex(++serial)}`, groupName: i.GroupName, description: i.GroupDescription, vpcId, ingress: [], tags };
      state.securityGroups.set(g.groupId, g);
      return { return: true, groupId: g.groupId };
    },
    AuthorizeSecurityGroupIngress(i) {
      const g = state.securityGroups.get(i.GroupId);
      if (!g) throw bad('InvalidGroup.NotFound', `The security group '${i.GroupId}' does not exist`);
      const perms = list<any>(i.IpPermissions);
      if (perms.length === 0) throw bad('MissingParameter', 'No IpPermissions given');
      const rules: Xml[] = [];
      for (const p of perms) {
        const protocol = String(p.IpProtocol ?? '');
        if (!protocol) throw bad('MissingParameter', 'The request must contain the parameter ipProtocol');
        const from = p.FromPort !== undefined ? Number(p.FromPort) : null;
        const to = p.ToPort !== undefined ? Number(p.ToPort) : null;
        if ((protocol === 'tcp' || protocol === 'udp') && (from === null || to === null || from > to || to > 65535)) throw bad('InvalidParameterValue', 'Invalid TCP/UDP port range');
        for (const r of list<any>(p.IpRanges)) {
          const dup = g.ingress.some((x) => x.protocol === protocol && x.from === from && x.to === to && x.cidrs.includes(r.CidrIp));
          if (dup) throw bad('InvalidPermission.Duplicate', `the specified rule "peer: ${r.CidrIp}, ${protocol.toUpperCase()}, from port: ${from}, to port: ${to}, ALLOW" already exists`);
          g.ingress.push({ protocol, from, to, cidrs: [r.CidrIp] });
          rules.push({ securityGroupRuleId: `sgr-${hex(++serial)}`, groupId: g.groupId, groupOwnerId: accountId, isEgress: false, ipProtocol: protocol, fromPort: from, toPort: to, cidrIpv4: r.CidrIp, description: r.Description });
        }
      }
      return { return: true, securityGroupRuleSet: rules };
    },
    DescribeNetworkInterfaces(i) {
      const enis = [...state.tasks.values()].filter((t) => t.eni && t.lastStatus === 'RUNNING').map((t) => t.eni!);
      for (const id of list<string>(i.NetworkInterfaceId)) if (!enis.some((e) => e.id === id)) throw bad('InvalidNetworkInterfaceID.NotFound', `The networkInterface ID '${id}' does not exist`);
      const shown = enis.filter((e) => (!i.NetworkInterfaceId || list<string>(i.NetworkInterfaceId).includes(e.id)) && matches(i.Filter, { 'network-interface-id': [e.id], 'subnet-id': [e.subnetId] }));
      return {
        networkInterfaceSet: shown.map((e) => ({
          networkInterfaceId: e.id, subnetId: e.subnetId, vpcId: state.subnets.find((s) => s.subnetId === e.subnetId)?.vpcId, status: 'in-use', interfaceType: 'interface',
          privateIpAddress: e.privateIp, association: { publicIp: e.publicIp, ipOwnerId: 'amazon', publicDnsName: '' }, description: 'arn:aws:ecs:attachment',
        })),
      };
    },
  };

  // -------------------------------------------------------------------------------------------
  // HTTP

  const JSON_TARGETS: Record<string, AwsService> = { AmazonEC2ContainerServiceV20141113: 'ecs', Logs_20140328: 'logs' };
  const QUERY_VERSIONS: Record<string, AwsService> = { '2010-05-08': 'iam', '2016-11-15': 'ec2' };
  const AUTH_CODES: Record<'json' | 'iam' | 'ec2', Record<'missing' | 'key' | 'signature', string>> = {
    json: { missing: 'MissingAuthenticationTokenException', key: 'UnrecognizedClientException', signature: 'InvalidSignatureException' },
    iam: { missing: 'MissingAuthenticationToken', key: 'InvalidClientTokenId', signature: 'SignatureDoesNotMatch' },
    ec2: { missing: 'MissingAuthenticationToken', key: 'AuthFailure', signature: 'AuthFailure' },
  };

  const send = (res: http.ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'x-amzn-requestid': randomUUID(), ...headers });
    res.end(body);
  };
  const sendError = (res: http.ServerResponse, service: AwsService | 'unknown', err: ApiError) => {
    const requestId = randomUUID();
    if (service === 'iam') {
      send(res, err.status, 'text/xml', `<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>Sender</Type><Code>${esc(err.code)}</Code><Message>${esc(err.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`);
    } else if (service === 'ec2') {
      send(res, err.status, 'text/xml;charset=UTF-8', `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${esc(err.code)}</Code><Message>${esc(err.message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`);
    } else {
      send(res, err.status, 'application/x-amz-json-1.1', JSON.stringify({ __type: err.code, message: err.message }), { 'x-amzn-errortype': err.code });
    }
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    let service: AwsService | 'unknown' = 'unknown';
    let operation = '';
    let input: any = null;
    const record = (status: number, error: string | null) => calls.push({ service, operation, input, status, error });
    try {
      const target = req.headers['x-amz-target'];
      if (req.method !== 'POST') throw new ApiError(405, 'MethodNotAllowed', 'The stand-in answers POST only');
      if (typeof target === 'string') {
        const [prefix, op] = target.split('.');
        service = JSON_TARGETS[prefix ?? ''] ?? 'unknown';
        operation = op ?? '';
        if (service === 'unknown') throw bad('UnknownOperationException', `Unknown target ${target}`);
        if (req.headers['content-type'] !== 'application/x-amz-json-1.1') throw bad('SerializationException', 'Content-Type must be application/x-amz-json-1.1');
        try {
          input = body.length > 0 ? JSON.parse(body.toString('utf8')) : {};
        } catch {
          throw bad('SerializationException', 'The body is not JSON');
        }
      } else {
        if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) throw bad('InvalidAction', 'Expected a form-encoded Query request or an X-Amz-Target');
        const form = new URLSearchParams(body.toString('utf8'));
        service = QUERY_VERSIONS[form.get('Version') ?? ''] ?? 'unknown';
        operation = form.get('Action') ?? '';
        input = parseQueryForm(form);
        if (service === 'unknown') throw bad('InvalidAction', `Unknown Version ${form.get('Version')}`);
      }
      const auth = verifySigV4(req, body, service, o);
      if (!auth.ok) throw new ApiError(403, AUTH_CODES[service === 'iam' || service === 'ec2' ? service : 'json'][auth.kind], auth.message);

      if (service === 'ecs' || service === 'logs') {
        const fn = (service === 'ecs' ? ecs : logs)[operation];
        if (!fn) throw bad('UnknownOperationException', `The stand-in does not implement ${operation}`);
        const out = fn(input);
        record(200, null);
        send(res, 200, 'application/x-amz-json-1.1', JSON.stringify(out));
      } else if (service === 'iam') {
        const fn = iam[operation];
        if (!fn) throw bad('InvalidAction', `The stand-in does not implement ${operation}`);
        const out = fn(input);
        record(200, null);
        const result = out ? xml(`${operation}Result`, out, 'member') : '';
        send(res, 200, 'text/xml', `<${operation}Response xmlns="https://iam.amazonaws.com/doc/2010-05-08/">${result}<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${operation}Response>`);
      } else {
        const fn = ec2[operation];
        if (!fn) throw bad('InvalidAction', `The stand-in does not implement ${operation}`);
        const out = fn(input);
        record(200, null);
        const inner = Object.entries(out).map(([k, v]) => xml(k, v, 'item')).join('');
        send(res, 200, 'text/xml;charset=UTF-8', `<?xml version="1.0" encoding="UTF-8"?>\n<${operation}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>${randomUUID()}</requestId>${inner}</${operation}Response>`);
      }
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(500, service === 'iam' || service === 'ec2' ? 'InternalFailure' : 'ServerException', String((err as Error)?.stack ?? err));
      record(e.status, e.code);
      sendError(res, service, e);
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  return {
    url,
    region,
    accountId,
    calls,
    state,
    failImage(image, reason) {
      failing.set(image, reason);
    },
    putLogs(group, lines, stream) {
      const g = state.logGroups.get(group);
      if (!g) throw new Error(`putLogs: no log group ${group}`);
      const name = stream ?? [...g.streams.values()].sort((a, b) => a.createdAt - b.createdAt).at(-1)?.name ?? 'app/app/0';
      const s = g.streams.get(name) ?? { name, createdAt: now(), events: [] };
      g.streams.set(name, s);
      let ts = Math.max(now(), (s.events.at(-1)?.timestamp ?? 0) + 1);
      for (const message of lines) s.events.push({ timestamp: ts++, message, ingestionTime: now() });
    },
    operations() {
      return calls.map((c) => `${c.service}:${c.operation}`);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
