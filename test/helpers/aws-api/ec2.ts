/**
 * EC2 (EC2 Query, `Version=2016-11-15`) in one account of the local AWS API server: the default
 * VPC and its subnets, security groups, and the network interfaces of running tasks.
 */
import type { AccountContext } from './account.js';
import { bad, hex, list, matches, type Xml } from './codec.js';
import type { FakeSecurityGroup } from './types.js';

export function ec2Api(ctx: AccountContext): Record<string, (i: any) => Record<string, Xml>> {
  const { state, accountId } = ctx;

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
      const g: FakeSecurityGroup = { groupId: `sg-${hex(ctx.next())}`, groupName: i.GroupName, description: i.GroupDescription, vpcId, ingress: [], tags };
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
          rules.push({ securityGroupRuleId: `sgr-${hex(ctx.next())}`, groupId: g.groupId, groupOwnerId: accountId, isEgress: false, ipProtocol: protocol, fromPort: from, toPort: to, cidrIpv4: r.CidrIp, description: r.Description });
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

  return ec2;
}
