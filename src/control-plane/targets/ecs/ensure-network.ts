/**
 * Where the service's tasks run: the account's default VPC and its subnets (every subnet there is
 * public, so a task with a public IP is reachable), and the env's security group `denv-<env>`
 * opening the container port to the internet. The group is made when missing and kept on teardown
 * (seed 002); a port the plan no longer uses stays open (nothing listens on it) — groups are only
 * ever added to, never pruned, so an apply cannot cut off a version still serving.
 */
import { AuthorizeSecurityGroupIngressCommand, CreateSecurityGroupCommand, DescribeSecurityGroupsCommand, DescribeSubnetsCommand, DescribeVpcsCommand, type SecurityGroup } from '@aws-sdk/client-ec2';
import { awsCall, awsCallExpecting } from './aws-call.js';
import type { AwsClients } from './aws-clients.js';
import { ingressPermission, opensPort, type EcsNetwork } from './ecs-inputs.js';
import type { EcsRunPlan } from './ecs-plan.js';

export interface EnsuredNetwork extends EcsNetwork {
  readonly vpcId: string;
  /** What this call made: `security group <name> (<id>)`, `ingress tcp/<port>`. */
  readonly created: readonly string[];
}

export async function ensureNetwork(aws: AwsClients, plan: EcsRunPlan, signal?: AbortSignal): Promise<EnsuredNetwork> {
  const opts = { abortSignal: signal };
  const created: string[] = [];
  const vpcs = await awsCall('ec2:DescribeVpcs', () => aws.ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: 'isDefault', Values: ['true'] }] }), opts));
  const vpcId = vpcs.Vpcs?.find((v) => v.IsDefault)?.VpcId;
  if (!vpcId) throw new Error(`ec2:DescribeVpcs: the account has no default VPC in ${plan.region}; an ECS target runs its tasks there (make one with \`aws ec2 create-default-vpc\`)`);

  const subnetsOut = await awsCall('ec2:DescribeSubnets', () => aws.ec2.send(new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }), opts));
  const subnets = (subnetsOut.Subnets ?? [])
    .filter((s) => s.SubnetId && (s.State === undefined || s.State === 'available'))
    .map((s) => s.SubnetId!)
    .sort();
  if (subnets.length === 0) throw new Error(`ec2:DescribeSubnets: the default VPC ${vpcId} has no available subnet`);

  const GroupName = plan.service.securityGroupName;
  const findGroup = async (): Promise<SecurityGroup | undefined> => {
    const out = await awsCall('ec2:DescribeSecurityGroups', () =>
      aws.ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }, { Name: 'group-name', Values: [GroupName] }] }), opts),
    );
    return out.SecurityGroups?.find((g) => g.GroupName === GroupName);
  };
  let group = await findGroup();
  if (!group) {
    const made = await awsCallExpecting('ec2:CreateSecurityGroup', ['InvalidGroup.Duplicate'], () =>
      aws.ec2.send(
        new CreateSecurityGroupCommand({
          GroupName,
          Description: `denv env ${plan.envName}: its app port`,
          VpcId: vpcId,
          TagSpecifications: [{ ResourceType: 'security-group', Tags: [{ Key: 'denv:env', Value: plan.envName }] }],
        }),
        opts,
      ),
    );
    if ('ok' in made && made.ok.GroupId) {
      group = { GroupId: made.ok.GroupId, GroupName, VpcId: vpcId, IpPermissions: [] };
      created.push(`security group ${GroupName} (${made.ok.GroupId})`);
    } else group = await findGroup(); // made by a racing apply
  }
  const securityGroupId = group?.GroupId;
  if (!securityGroupId) throw new Error(`ec2:DescribeSecurityGroups: security group ${GroupName} not found after it was made`);

  const port = plan.container.port;
  if (!opensPort(group!, port)) {
    const opened = await awsCallExpecting('ec2:AuthorizeSecurityGroupIngress', ['InvalidPermission.Duplicate'], () =>
      aws.ec2.send(new AuthorizeSecurityGroupIngressCommand({ GroupId: securityGroupId, IpPermissions: [ingressPermission(port)] }), opts),
    );
    if ('ok' in opened) created.push(`ingress tcp/${port}`);
  }
  return { vpcId, subnets, securityGroupId, created };
}
