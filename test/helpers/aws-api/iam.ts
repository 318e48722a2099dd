/**
 * IAM (AWS Query, `Version=2010-05-08`) in one account of the local AWS API server: the roles
 * ECS's execution role needs (its managed and inline policies), and those STS lets callers assume.
 */
import { ApiError, hex, type Xml } from './codec.js';
import type { AccountContext } from './account.js';
import type { FakeRole } from './types.js';

const MANAGED_POLICY = /^arn:aws(-cn|-us-gov)?:iam::aws:policy\/[\w+=,.@/-]+$/;

export function iamApi(ctx: AccountContext): Record<string, (i: any) => Record<string, Xml> | null> {
  const { state, accountId } = ctx;

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
        RoleName: i.RoleName, RoleId: `AROA${hex(ctx.next()).toUpperCase()}`, Arn: `arn:aws:iam::${accountId}:role${i.Path ?? '/'}${i.RoleName}`, Path: i.Path ?? '/',
        AssumeRolePolicyDocument: i.AssumeRolePolicyDocument, Description: i.Description, CreateDate: new Date(), policies: new Set(), inline: new Map(),
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
    PutRolePolicy(i) {
      const r = roleOf(i.RoleName);
      if (typeof i.PolicyName !== 'string' || !/^[\w+=,.@-]{1,128}$/.test(i.PolicyName)) throw new ApiError(400, 'ValidationError', 'The specified value for policyName is invalid.');
      try {
        const doc = JSON.parse(i.PolicyDocument ?? '');
        if (!doc.Statement) throw new Error('no Statement');
      } catch {
        throw new ApiError(400, 'MalformedPolicyDocument', 'This policy contains invalid Json');
      }
      r.inline.set(i.PolicyName, i.PolicyDocument);
      return null;
    },
    GetRolePolicy(i) {
      const r = roleOf(i.RoleName);
      const doc = r.inline.get(String(i.PolicyName));
      if (doc === undefined) throw new ApiError(404, 'NoSuchEntity', `The role policy with name ${i.PolicyName} cannot be found.`);
      // IAM answers policy documents URL-encoded (RFC 3986).
      return { RoleName: r.RoleName, PolicyName: i.PolicyName, PolicyDocument: encodeURIComponent(doc) };
    },
  };

  return iam;
}
