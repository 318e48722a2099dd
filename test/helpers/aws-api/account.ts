/**
 * One AWS account of the local AWS API server: its state (ECS, Logs, IAM, EC2 and Secrets Manager resources) and
 * what the service modules need to act in it. The server keeps one per account id — its own and
 * each one Organizations vended or a test added — and a request acts in the account of the
 * credentials that signed it.
 */
import type { FakeAwsState, FakeRegistryLogin } from './types.js';

export interface AccountContext {
  readonly accountId: string;
  readonly region: string;
  readonly state: FakeAwsState;
  /** DescribeServices answers a new task stays PROVISIONING (server option `startPolls`). */
  readonly startPolls: number;
  /** Images whose tasks stop before they run, with the reason (server-wide: `failImage`). */
  readonly failing: ReadonlyMap<string, string>;
  /** Images whose tasks stay PROVISIONING while held (server-wide: `holdImage`). */
  readonly held: ReadonlySet<string>;
  /** Registries whose images pull only with their login, by host (server-wide: `privateRegistry`). */
  readonly privateRegistries: ReadonlyMap<string, FakeRegistryLogin>;
  /** The server-wide serial, so ids (sg-, eni-, AROA…) stay unique across accounts. */
  next(): number;
}

export const DEFAULT_VPC = 'vpc-0d3fa0175e11a0001';

/** An empty account; with the default VPC (three subnets in `region`) that new accounts have. */
export function newAccountState(region: string, defaultVpc: boolean): FakeAwsState {
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
    secrets: new Map(),
  };
  if (defaultVpc) {
    state.vpcs.push({ vpcId: DEFAULT_VPC, cidrBlock: '172.31.0.0/16', isDefault: true });
    ['a', 'b', 'c'].forEach((az, i) => state.subnets.push({ subnetId: `subnet-0d3fa0175e11a000${i + 1}`, vpcId: DEFAULT_VPC, availabilityZone: `${region}${az}`, cidrBlock: `172.31.${i * 16}.0/20` }));
  }
  return state;
}

/** `arn:aws:<service>:<region>:<account>:<resource>` in this account. */
export const arnIn = (ctx: AccountContext, service: string, resource: string) => `arn:aws:${service}:${ctx.region}:${ctx.accountId}:${resource}`;
