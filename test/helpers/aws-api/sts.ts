/**
 * STS (AWS Query, `Version=2011-06-15`) for the local AWS API server: `GetCallerIdentity` names the
 * caller (account, ARN) and `AssumeRole` issues
 * temporary credentials (ASIA… key, secret, session token, expiry) for a role that exists in its
 * account's IAM state and trusts the caller. The server then accepts those keys — with their
 * session token — and requests signed with them act in the role's account.
 *
 * Checked as AWS does: RoleArn and RoleSessionName present and well-formed, DurationSeconds within
 * 900…the role's MaxSessionDuration (3600), ExternalId's form; the role must exist and its trust
 * policy allow `sts:AssumeRole` to the caller's account (`arn:aws:iam::<id>:root` or the id) or
 * the caller's own ARN, with the `sts:ExternalId` its condition names. Otherwise 403 AccessDenied,
 * which says nothing about which of these failed (AWS does not either).
 */
import { randomBytes } from 'node:crypto';
import type { AccountContext } from './account.js';
import { ApiError, now, type Xml } from './codec.js';
import type { Principal } from './sigv4.js';
import type { FakeRole, FakeSession } from './types.js';

export interface StsDeps {
  account(accountId: string): AccountContext | undefined;
  /** Makes the issued keys known to the SigV4 check. */
  issue(session: FakeSession): void;
}

const ROLE_ARN = /^arn:aws:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]{1,64})$/;
const validation = (message: string) => new ApiError(400, 'ValidationError', message);

/** The caller as STS names it in AccessDenied messages and trust policies. */
export function callerArn(p: Principal): string {
  if (p.roleArn) {
    const [, , name] = ROLE_ARN.exec(p.roleArn) ?? [];
    return `arn:aws:sts::${p.accountId}:assumed-role/${name}/${p.sessionName}`;
  }
  return `arn:aws:iam::${p.accountId}:user/denv-test`;
}

/** Does `role`'s trust policy let `caller` assume it with `externalId`? */
function trusts(role: FakeRole, caller: Principal, externalId: string | undefined): boolean {
  let doc: any;
  try {
    doc = JSON.parse(role.AssumeRolePolicyDocument);
  } catch {
    return false;
  }
  const arr = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const principals = new Set([`arn:aws:iam::${caller.accountId}:root`, caller.accountId, callerArn(caller), ...(caller.roleArn ? [caller.roleArn] : [])]);
  return arr(doc.Statement).some((s: any) => {
    if (s?.Effect !== 'Allow') return false;
    if (!arr(s.Action).some((a) => a === 'sts:AssumeRole' || a === 'sts:*' || a === '*')) return false;
    if (!arr(s.Principal?.AWS).some((p) => p === '*' || principals.has(String(p)))) return false;
    const wanted = s.Condition?.StringEquals?.['sts:ExternalId'];
    return wanted === undefined || arr(wanted).includes(externalId);
  });
}

const token = (bytes: number) => randomBytes(bytes).toString('base64').replace(/[+/=]/g, '');

export function stsApi(deps: StsDeps): Record<string, (i: any, caller: Principal) => Record<string, Xml>> {
  return {
    /** Who signed the request (needs no permission, as on AWS). */
    GetCallerIdentity(_i, caller) {
      return { UserId: caller.roleArn ? `AROADENVTEST:${caller.sessionName}` : 'AIDADENVTEST', Account: caller.accountId, Arn: callerArn(caller) };
    },
    AssumeRole(i, caller) {
      if (typeof i.RoleArn !== 'string') throw validation("1 validation error detected: Value null at 'roleArn' failed to satisfy constraint: Member must not be null");
      if (typeof i.RoleSessionName !== 'string') throw validation("1 validation error detected: Value null at 'roleSessionName' failed to satisfy constraint: Member must not be null");
      if (!/^[\w+=,.@-]{2,64}$/.test(i.RoleSessionName)) throw validation(`1 validation error detected: Value '${i.RoleSessionName}' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]* and have length between 2 and 64`);
      if (i.ExternalId !== undefined && !/^[\w+=,.@:/-]{2,1224}$/.test(i.ExternalId)) throw validation(`1 validation error detected: Value at 'externalId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@:\\/-]* and have length between 2 and 1224`);
      const duration = i.DurationSeconds === undefined ? 3600 : Number(i.DurationSeconds);
      if (!Number.isInteger(duration) || duration < 900 || duration > 43200) throw validation(`1 validation error detected: Value '${i.DurationSeconds}' at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and 43200`);
      const m = ROLE_ARN.exec(i.RoleArn);
      if (!m) throw validation(`${i.RoleArn} is invalid`);
      const [, accountId] = m;
      const denied = new ApiError(403, 'AccessDenied', `User: ${callerArn(caller)} is not authorized to perform: sts:AssumeRole on resource: ${i.RoleArn}`);
      const account = deps.account(accountId!);
      const role = account && [...account.state.roles.values()].find((r) => r.Arn === i.RoleArn);
      if (!role || !trusts(role, caller, i.ExternalId)) throw denied;
      if (duration > 3600) throw validation('The requested DurationSeconds exceeds the MaxSessionDuration set for this role.');
      const session: FakeSession = {
        accessKeyId: `ASIA${token(24).toUpperCase().slice(0, 16)}`,
        secretAccessKey: token(40).slice(0, 40),
        sessionToken: `FwoGZXIvYXdzE${token(96)}`,
        accountId: accountId!,
        roleArn: role.Arn,
        sessionName: i.RoleSessionName,
        // Whole seconds, as AWS's Expiration is.
        expiresAt: Math.floor(now() / 1000) * 1000 + duration * 1000,
      };
      deps.issue(session);
      return {
        Credentials: { AccessKeyId: session.accessKeyId, SecretAccessKey: session.secretAccessKey, SessionToken: session.sessionToken, Expiration: new Date(session.expiresAt) },
        AssumedRoleUser: { AssumedRoleId: `${role.RoleId}:${session.sessionName}`, Arn: `arn:aws:sts::${accountId}:assumed-role/${role.RoleName}/${session.sessionName}` },
      };
    },
  };
}
