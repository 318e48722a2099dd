/**
 * A local stand-in for the AWS APIs denv calls, for its contract tests: one endpoint on
 * 127.0.0.1 (ephemeral port) speaking each service's documented protocol, keeping state per
 * account, and checking what the caller sends. Point every SDK client at `url` (`endpoint`) with
 * the credentials it was started with.
 *
 * Protocols (what the SDK v3 clients send and parse):
 *  - ECS, CloudWatch Logs, Organizations and Secrets Manager: AWS JSON 1.1 — `POST /`, `Content-Type:
 *    application/x-amz-json-1.1`, `X-Amz-Target: AmazonEC2ContainerServiceV20141113.<Op>` /
 *    `Logs_20140328.<Op>` / `AWSOrganizationsV20161128.<Op>` / `secretsmanager.<Op>`, a JSON body;
 *    errors are HTTP 4xx with `{"__type": <code>, "message"}` and `x-amzn-ErrorType`. Timestamps
 *    are epoch seconds (ECS, Organizations, Secrets Manager) or epoch milliseconds (Logs' longs), as documented.
 *  - IAM and STS: AWS Query — form-encoded `Action=<Op>&Version=2010-05-08|2011-06-15&…` (lists as
 *    `X.member.N`); answers `<OpResponse><OpResult>…</OpResult><ResponseMetadata/>`, lists as
 *    `<member>`; errors `<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>`.
 *  - EC2: EC2 Query — form-encoded `Action=<Op>&Version=2016-11-15&…` (lists flattened `X.N`);
 *    answers `<OpResponse><requestId/>…</OpResponse>` with lower-camel names and `<item>` lists;
 *    errors `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`.
 * Query services are told apart by `Version`, and the credential scope's service must match.
 *
 * Authentication (aws-api/sigv4.ts): every request must carry a SigV4 `Authorization` header for a
 * key the server knows — the configured one (with `sessionToken` when configured), or temporary
 * keys STS issued (always with their session token) — and its signature is verified with that
 * key's secret. Missing → 403 MissingAuthenticationToken(Exception); unknown key or session token →
 * 403 UnrecognizedClientException / InvalidClientTokenId / AuthFailure; expired temporary keys →
 * 403 ExpiredTokenException / ExpiredToken; a bad signature → 403 InvalidSignatureException /
 * SignatureDoesNotMatch / AuthFailure (JSON / IAM and STS / EC2). Organizations, a global service,
 * must be signed for us-east-1.
 *
 * Accounts (aws-api/account.ts): the configured keys act in `accountId`, the organization's
 * management account; `state` is its state. STS AssumeRole (aws-api/sts.ts) into a role of another
 * account issues keys that act in that account: ECS, Logs, IAM, EC2 and Secrets Manager calls signed with them read
 * and change that account's own state (clusters, services, roles, secrets, …: `account(id)`), and each call
 * records the account it acted in. Organizations CreateAccount (aws-api/organizations.ts) vends new
 * accounts with an assumable OrganizationAccountAccessRole; `addAccount` / `addRole` make the
 * account and role a team would bring.
 *
 * Each account has a default VPC (vpc-0d3fa0175e11a0001, three subnets) unless `defaultVpc: false`.
 * Checks beyond type and presence: RegisterTaskDefinition needs a Fargate-valid cpu/memory pair,
 * awsvpc, an execution role ARN, an awslogs log configuration with group, region and stream prefix,
 * and host port = container port; CreateService needs an existing ACTIVE cluster and task
 * definition, FARGATE, subnets and security groups that exist, and assignPublicIp ENABLED.
 *
 * Tasks (aws-api/ecs.ts): a service's PRIMARY deployment gets tasks up to its desired count. A task
 * is PROVISIONING in the first `startPolls` DescribeServices answers after it was made (default 0),
 * then RUNNING with an ENI and a public IP in 203.0.113.0/24 (TEST-NET-3) — or STOPPED (stopCode
 * TaskFailedToStart) with a reason: the one `failImage` gave its image, or what AWS says when the
 * execution role is missing, does not trust ecs-tasks.amazonaws.com, lacks
 * AmazonECSTaskExecutionRolePolicy, or the log group is missing — or the image cannot be pulled.
 *
 * Private registries (`privateRegistry(server, login)`, server-wide): an image on `server` (its
 * reference's first component when that holds a dot or a port or is `localhost`, else `docker.io`)
 * pulls only when its container's `repositoryCredentials.credentialsParameter` names (by ARN or
 * name) a Secrets Manager secret of the task's account, the execution role has an inline policy
 * (PutRolePolicy) allowing secretsmanager:GetSecretValue on that secret's ARN (`*` wildcards
 * honoured, a Deny wins), and the secret's current value is `{"username", "password"}` equal to
 * the login. Otherwise the task stops as AWS says it: no repositoryCredentials or a wrong login →
 * `CannotPullContainerError: … 401 Unauthorized`; a missing secret or one the role may not read →
 * `ResourceInitializationError: unable to pull secrets or registry auth: … ResourceNotFoundException`
 * / `AccessDeniedException …`. Secrets Manager itself (aws-api/secrets.ts): CreateSecret,
 * DescribeSecret, GetSecretValue, PutSecretValue; IAM PutRolePolicy / GetRolePolicy (the document
 * answered URL-encoded, as IAM does).
 *
 * With the circuit breaker on, a
 * deployment's first failed task marks it FAILED (AWS waits for a threshold, then rolls back; no
 * rollback is simulated: the older deployment keeps its tasks). When the PRIMARY is steady, older
 * deployments' tasks stop and the deployments go. A running task writes its log stream
 * `<prefix>/<container>/<task id>`. DeleteService stops the tasks and leaves the service INACTIVE at
 * once (AWS drains first).
 *
 * Holds and stops, per image and server-wide (each test env may run an image of its own):
 * `holdImage(image)` keeps tasks of the image PROVISIONING (not RUNNING: no ENI, no public IP) until
 * the release it returns is called — a rollout to it stays in progress (a deploy's waitStable keeps
 * waiting), with no reason to give up on; the next DescribeServices after the release starts them.
 * `stopTasks(image, reason)` stops the image's RUNNING tasks as if their essential container exited
 * (stopCode EssentialContainerExited, stoppedReason `reason`); the service replaces them at its next
 * DescribeServices, and while the image is held the replacements stay PROVISIONING: the service has
 * fewer running than desired.
 *
 * Every request is recorded in `calls` (service, operation, parsed input, HTTP status, error code,
 * account), refused ones included.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { newAccountState, type AccountContext } from './aws-api/account.js';
import { ApiError, bad, esc, now, parseQueryForm, xml, type Xml } from './aws-api/codec.js';
import { ec2Api } from './aws-api/ec2.js';
import { ecsApi, stopTask } from './aws-api/ecs.js';
import { iamApi } from './aws-api/iam.js';
import { logsApi } from './aws-api/logs.js';
import { organizationsApi } from './aws-api/organizations.js';
import { secretsApi } from './aws-api/secrets.js';
import { verifySigV4, type AuthFailure, type Principal } from './aws-api/sigv4.js';
import { stsApi } from './aws-api/sts.js';
import type { AwsCall, AwsService, FakeAwsState, FakeCreateAccountRequest, FakeRegistryLogin, FakeRole, FakeSession } from './aws-api/types.js';

export { parseQueryForm } from './aws-api/codec.js';
export type * from './aws-api/types.js';

export interface FakeAws {
  readonly url: string;
  readonly region: string;
  /** The configured keys' account: the organization's management account. */
  readonly accountId: string;
  readonly calls: AwsCall[];
  /** The state of `accountId`. */
  readonly state: FakeAwsState;
  /** Every account's state, by id: `accountId`, vended and added ones. */
  readonly accounts: ReadonlyMap<string, FakeAwsState>;
  /** Organizations CreateAccount requests, by id. */
  readonly createAccountRequests: ReadonlyMap<string, FakeCreateAccountRequest>;
  /** Temporary credentials STS issued, by access key id (tests may move `expiresAt`). */
  readonly sessions: ReadonlyMap<string, FakeSession>;
  /** The state of `id`; throws when there is no such account. */
  account(id: string): FakeAwsState;
  /** Another account (outside the organization, e.g. a team's own), empty but for its default VPC. */
  addAccount(id: string): FakeAwsState;
  /** A role in `accountId` (made when missing) that `trustedAccountId` (default: the server's
   *  account) may assume, with `externalId` required when given. Returns the role. */
  addRole(accountId: string, roleName: string, o?: { readonly trustedAccountId?: string; readonly externalId?: string }): FakeRole;
  /** Tasks of `image` stop before they run, with `reason` (e.g. a CannotPullContainerError). */
  failImage(image: string, reason: string): void;
  /** Tasks of `image` stay PROVISIONING until the returned release is called. */
  holdImage(image: string): () => void;
  /** Images on `server` (a host as image references name it, e.g. `ghcr.io`, `registry.example.test:5000`)
   *  pull only with `login`, read by the execution role from the secret the container names. */
  privateRegistry(server: string, login: FakeRegistryLogin): void;
  /** The RUNNING tasks of `image` (in every account) stop: their essential container exited, with
   *  `reason`. Returns how many stopped. */
  stopTasks(image: string, reason: string): number;
  /** Lines the app printed, into `stream` of `group` (default: the group's newest stream) in `accountId` (default: the server's). */
  putLogs(group: string, lines: readonly string[], stream?: string, accountId?: string): void;
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
  /** DescribeCreateAccountStatus answers that say IN_PROGRESS before a request completes (default 1). */
  readonly vendPolls?: number;
  /** The management account's email: CreateAccount with it fails with EMAIL_ALREADY_EXISTS. */
  readonly email?: string;
}

interface Account {
  readonly ctx: AccountContext;
  readonly ecs: Record<string, (i: any) => unknown>;
  readonly logs: Record<string, (i: any) => unknown>;
  readonly secretsmanager: Record<string, (i: any) => unknown>;
  readonly iam: Record<string, (i: any) => Record<string, Xml> | null>;
  readonly ec2: Record<string, (i: any) => Record<string, Xml>>;
}

const JSON_TARGETS: Record<string, AwsService> = { AmazonEC2ContainerServiceV20141113: 'ecs', Logs_20140328: 'logs', AWSOrganizationsV20161128: 'organizations', secretsmanager: 'secretsmanager' };
const QUERY_VERSIONS: Record<string, AwsService> = { '2010-05-08': 'iam', '2016-11-15': 'ec2', '2011-06-15': 'sts' };
const XMLNS: Partial<Record<AwsService, string>> = { iam: 'https://iam.amazonaws.com/doc/2010-05-08/', sts: 'https://sts.amazonaws.com/doc/2011-06-15/' };
const AUTH_CODES: Record<'json' | 'query' | 'ec2', Record<AuthFailure, string>> = {
  json: { missing: 'MissingAuthenticationTokenException', key: 'UnrecognizedClientException', expired: 'ExpiredTokenException', signature: 'InvalidSignatureException' },
  query: { missing: 'MissingAuthenticationToken', key: 'InvalidClientTokenId', expired: 'ExpiredToken', signature: 'SignatureDoesNotMatch' },
  ec2: { missing: 'MissingAuthenticationToken', key: 'AuthFailure', expired: 'ExpiredToken', signature: 'AuthFailure' },
};
const protocolOf = (service: AwsService | 'unknown') => (service === 'iam' || service === 'sts' ? 'query' : service === 'ec2' ? 'ec2' : 'json');

export async function startAwsApiServer(o: AwsApiServerOptions): Promise<FakeAws> {
  const region = o.region ?? 'eu-central-1';
  const home = o.accountId ?? '123456789012';
  const calls: AwsCall[] = [];
  const failing = new Map<string, string>();
  const held = new Set<string>();
  const privateRegistries = new Map<string, FakeRegistryLogin>();
  let serial = 0;
  const next = () => ++serial;

  const accounts = new Map<string, Account>();
  const states = new Map<string, FakeAwsState>();
  const addAccount = (id: string): Account => {
    const existing = accounts.get(id);
    if (existing) return existing;
    if (!/^\d{12}$/.test(id)) throw new Error(`addAccount: ${id} is not a 12-digit account id`);
    const ctx: AccountContext = { accountId: id, region, state: newAccountState(region, o.defaultVpc !== false), startPolls: o.startPolls ?? 0, failing, held, privateRegistries, next };
    const account: Account = { ctx, ecs: ecsApi(ctx), logs: logsApi(ctx), secretsmanager: secretsApi(ctx), iam: iamApi(ctx), ec2: ec2Api(ctx) };
    accounts.set(id, account);
    states.set(id, ctx.state);
    return account;
  };
  addAccount(home);
  const stateOf = (id: string) => {
    const a = accounts.get(id);
    if (!a) throw new Error(`no account ${id} in the AWS API server`);
    return a.ctx.state;
  };

  const addRole = (accountId: string, roleName: string, trust: { readonly trustedAccountId?: string; readonly externalId?: string } = {}, policies: readonly string[] = []): FakeRole => {
    const { state } = addAccount(accountId).ctx;
    const statement = {
      Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${trust.trustedAccountId ?? home}:root` }, Action: 'sts:AssumeRole',
      ...(trust.externalId ? { Condition: { StringEquals: { 'sts:ExternalId': trust.externalId } } } : {}),
    };
    const role: FakeRole = {
      RoleName: roleName, RoleId: `AROA${next().toString(16).padStart(17, '0').toUpperCase()}`, Arn: `arn:aws:iam::${accountId}:role/${roleName}`, Path: '/',
      AssumeRolePolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [statement] }), CreateDate: new Date(), policies: new Set(policies), inline: new Map(),
    };
    state.roles.set(roleName, role);
    return role;
  };

  // Credentials: the configured keys, and the temporary ones STS issues.
  const sessions = new Map<string, FakeSession>();
  const lookup = (keyId: string): Principal | undefined => {
    if (keyId === o.accessKeyId) return { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey, accountId: home, ...(o.sessionToken !== undefined ? { sessionToken: o.sessionToken } : {}) };
    return sessions.get(keyId);
  };

  const sts = stsApi({ account: (id) => accounts.get(id)?.ctx, issue: (s) => sessions.set(s.accessKeyId, s) });
  const requests = new Map<string, FakeCreateAccountRequest>();
  let vended = 0;
  const organizations = organizationsApi({
    managementAccountId: home,
    requests,
    vendPolls: o.vendPolls ?? 1,
    takenEmails: o.email ? [o.email] : [],
    vend(roleName) {
      let id: string;
      do id = String(210000000000 + ++vended);
      while (accounts.has(id));
      addRole(id, roleName, {}, ['arn:aws:iam::aws:policy/AdministratorAccess']);
      return id;
    },
  });

  // -------------------------------------------------------------------------------------------
  // HTTP

  const send = (res: http.ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'x-amzn-requestid': randomUUID(), ...headers });
    res.end(body);
  };
  const sendError = (res: http.ServerResponse, service: AwsService | 'unknown', err: ApiError) => {
    const requestId = randomUUID();
    const protocol = protocolOf(service);
    if (protocol === 'query') {
      send(res, err.status, 'text/xml', `<ErrorResponse xmlns="${XMLNS[service as AwsService]}"><Error><Type>Sender</Type><Code>${esc(err.code)}</Code><Message>${esc(err.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`);
    } else if (protocol === 'ec2') {
      send(res, err.status, 'text/xml;charset=UTF-8', `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${esc(err.code)}</Code><Message>${esc(err.message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`);
    } else {
      send(res, err.status, 'application/x-amz-json-1.1', JSON.stringify({ __type: err.code, message: err.message }), { 'x-amzn-errortype': err.code });
    }
  };
  const sendQuery = (res: http.ServerResponse, service: AwsService, operation: string, out: Record<string, Xml> | null) => {
    const result = out ? xml(`${operation}Result`, out, 'member') : '';
    send(res, 200, 'text/xml', `<${operation}Response xmlns="${XMLNS[service]}">${result}<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${operation}Response>`);
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    let service: AwsService | 'unknown' = 'unknown';
    let operation = '';
    let input: any = null;
    let accountId: string | null = null;
    const record = (status: number, error: string | null) => calls.push({ service, operation, input, status, error, accountId });
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
      const auth = verifySigV4(req, body, { service, lookup, now: now(), ...(service === 'organizations' ? { region: 'us-east-1' } : {}) });
      if (!auth.ok) throw new ApiError(403, AUTH_CODES[protocolOf(service)][auth.kind], auth.message);
      const caller = auth.principal;
      accountId = caller.accountId;
      const account = accounts.get(caller.accountId)!;

      if (service === 'ecs' || service === 'logs' || service === 'secretsmanager' || service === 'organizations') {
        const fn = service === 'organizations' ? organizations[operation] : account[service][operation];
        if (!fn) throw bad('UnknownOperationException', `The stand-in does not implement ${operation}`);
        const out = fn(input, caller);
        record(200, null);
        send(res, 200, 'application/x-amz-json-1.1', JSON.stringify(out));
      } else if (service === 'iam' || service === 'sts') {
        const fn = service === 'sts' ? sts[operation] : account.iam[operation];
        if (!fn) throw bad('InvalidAction', `The stand-in does not implement ${operation}`);
        const out = fn(input, caller);
        record(200, null);
        sendQuery(res, service, operation, out);
      } else {
        const fn = account.ec2[operation];
        if (!fn) throw bad('InvalidAction', `The stand-in does not implement ${operation}`);
        const out = fn(input);
        record(200, null);
        const inner = Object.entries(out).map(([k, v]) => xml(k, v, 'item')).join('');
        send(res, 200, 'text/xml;charset=UTF-8', `<?xml version="1.0" encoding="UTF-8"?>\n<${operation}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>${randomUUID()}</requestId>${inner}</${operation}Response>`);
      }
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(500, protocolOf(service) === 'json' ? 'ServerException' : 'InternalFailure', String((err as Error)?.stack ?? err));
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
    accountId: home,
    calls,
    state: stateOf(home),
    accounts: states,
    createAccountRequests: requests,
    sessions,
    account: stateOf,
    addAccount: (id) => addAccount(id).ctx.state,
    addRole: (accountId, roleName, trust) => addRole(accountId, roleName, trust),
    failImage(image, reason) {
      failing.set(image, reason);
    },
    holdImage(image) {
      held.add(image);
      return () => void held.delete(image);
    },
    privateRegistry(server, login) {
      privateRegistries.set(server.toLowerCase(), login);
    },
    stopTasks(image, reason) {
      const running = [...states.values()].flatMap((st) => [...st.tasks.values()]).filter((t) => t.image === image && t.lastStatus === 'RUNNING');
      for (const t of running) stopTask(t, 'EssentialContainerExited', reason);
      return running.length;
    },
    putLogs(group, lines, stream, accountId = home) {
      const g = stateOf(accountId).logGroups.get(group);
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
