/**
 * The local AWS API server's data: what it records of each call and the state it keeps per account
 * (test/helpers/aws-api-server.ts). Tests read these; the service modules beside this file change them.
 */

export type AwsService = 'ecs' | 'logs' | 'iam' | 'ec2' | 'sts' | 'organizations' | 'secretsmanager';

export interface AwsCall {
  readonly service: AwsService | 'unknown';
  readonly operation: string;
  /** JSON protocols: the body; Query protocols: the form, nested (`Filter.1.Value.1` → `Filter[0].Value[0]`). */
  readonly input: any;
  readonly status: number;
  readonly error: string | null;
  /** The account the call acted in: its credentials' (the server's own, or an assumed role's); null when they were not recognised. */
  readonly accountId: string | null;
}

export interface FakeRole {
  RoleName: string;
  RoleId: string;
  Arn: string;
  Path: string;
  AssumeRolePolicyDocument: string;
  Description?: string;
  CreateDate: Date;
  /** Attached managed policies, by ARN. */
  policies: Set<string>;
  /** Inline policies (PutRolePolicy): name → the policy document as sent (JSON). */
  inline: Map<string, string>;
}
/** A Secrets Manager secret; its versions in order, the last one AWSCURRENT. */
export interface FakeSecret {
  readonly arn: string;
  readonly name: string;
  readonly description?: string;
  readonly tags: { Key: string; Value: string }[];
  readonly versions: { id: string; value: string; createdAt: number }[];
  readonly createdAt: number;
  lastChangedAt: number;
}
/** A registry the server treats as private (`privateRegistry`): its images pull only with this login. */
export interface FakeRegistryLogin { readonly username: string; readonly password: string }
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
  /** Secrets Manager secrets, by name. */
  readonly secrets: Map<string, FakeSecret>;
}

/** An Organizations CreateAccount request, as DescribeCreateAccountStatus reports it. */
export interface FakeCreateAccountRequest {
  readonly id: string;
  readonly accountName: string;
  readonly email: string;
  readonly roleName: string;
  state: 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED';
  /** DescribeCreateAccountStatus answers left that say IN_PROGRESS. */
  pendingReads: number;
  accountId: string | null;
  failureReason: string | null;
  readonly requestedAt: number;
  completedAt: number | null;
}

/** Temporary credentials STS issued; requests signed with them act in `accountId`. */
export interface FakeSession {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly accountId: string;
  readonly roleArn: string;
  readonly sessionName: string;
  /** Epoch ms; a request signed after it is refused as ExpiredToken. Tests may move it. */
  expiresAt: number;
}
