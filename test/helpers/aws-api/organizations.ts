/**
 * AWS Organizations (AWS JSON 1.1, `AWSOrganizationsV20161128.<Op>`) for the local AWS API
 * server: the server's own account is the organization's management account, and only it may call.
 *
 * `CreateAccount` answers IN_PROGRESS with a `car-…` request id. `DescribeCreateAccountStatus`
 * then says IN_PROGRESS `vendPolls` more times, then SUCCEEDED — a new 12-digit account (its own
 * state, a default VPC) holding the requested role (default OrganizationAccountAccessRole), which
 * trusts the management account and has AdministratorAccess — or FAILED with EMAIL_ALREADY_EXISTS
 * when an account (or a request not failed) already has the email. Timestamps are epoch seconds.
 * The service is global: requests must be signed for us-east-1 (checked by the server).
 */
import { randomUUID } from 'node:crypto';
import { ApiError, bad, epochSeconds, now } from './codec.js';
import type { Principal } from './sigv4.js';
import type { FakeCreateAccountRequest } from './types.js';

export interface OrganizationsDeps {
  readonly managementAccountId: string;
  readonly requests: Map<string, FakeCreateAccountRequest>;
  /** DescribeCreateAccountStatus answers that say IN_PROGRESS before the outcome. */
  readonly vendPolls: number;
  /** Emails of accounts that exist outside the requests (e.g. the management account's). */
  readonly takenEmails: readonly string[];
  /** A new member account with `roleName` trusting the management account; returns its id. */
  vend(roleName: string): string;
}

export const DEFAULT_ROLE_NAME = 'OrganizationAccountAccessRole';
const invalid = (message: string) => bad('InvalidInputException', message);

export function organizationsApi(deps: OrganizationsDeps): Record<string, (i: any, caller: Principal) => unknown> {
  const statusJson = (r: FakeCreateAccountRequest) => ({
    Id: r.id, AccountName: r.accountName, State: r.state, RequestedTimestamp: epochSeconds(r.requestedAt),
    ...(r.completedAt !== null ? { CompletedTimestamp: epochSeconds(r.completedAt) } : {}),
    ...(r.accountId ? { AccountId: r.accountId } : {}),
    ...(r.state === 'FAILED' ? { FailureReason: r.failureReason } : {}),
  });
  const management = (caller: Principal) => {
    if (caller.accountId !== deps.managementAccountId) throw new ApiError(400, 'AccessDeniedException', "You don't have permissions to access this resource.");
  };
  const taken = (email: string) =>
    deps.takenEmails.some((e) => e.toLowerCase() === email) || [...deps.requests.values()].some((r) => r.state !== 'FAILED' && r.failureReason === null && r.email === email);

  return {
    CreateAccount(i, caller) {
      management(caller);
      if (typeof i.Email !== 'string' || i.Email.length < 6 || i.Email.length > 64 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(i.Email)) throw invalid('You provided a value that does not match the required pattern. (Email)');
      if (typeof i.AccountName !== 'string' || !/^[\u0020-\u007E]{1,50}$/.test(i.AccountName)) throw invalid('You provided a value that does not match the required pattern. (AccountName)');
      if (i.RoleName !== undefined && !/^[\w+=,.@-]{1,64}$/.test(i.RoleName)) throw invalid('You provided a value that does not match the required pattern. (RoleName)');
      const email = i.Email.toLowerCase();
      // Decided now, told when the request completes (as AWS reports it: a FAILED status, not an error).
      const failureReason = taken(email) ? 'EMAIL_ALREADY_EXISTS' : null;
      const r: FakeCreateAccountRequest = {
        id: `car-${randomUUID().replace(/-/g, '')}`, accountName: i.AccountName, email, roleName: i.RoleName ?? DEFAULT_ROLE_NAME,
        state: 'IN_PROGRESS', pendingReads: deps.vendPolls, accountId: null, failureReason, requestedAt: now(), completedAt: null,
      };
      deps.requests.set(r.id, r);
      return { CreateAccountStatus: statusJson(r) };
    },
    DescribeCreateAccountStatus(i, caller) {
      management(caller);
      if (typeof i.CreateAccountRequestId !== 'string' || !/^car-[a-z0-9]{8,32}$/.test(i.CreateAccountRequestId)) throw invalid('You provided a value that does not match the required pattern. (CreateAccountRequestId)');
      const r = deps.requests.get(i.CreateAccountRequestId);
      if (!r) throw bad('CreateAccountStatusNotFoundException', 'We can\'t find a create account request with the CreateAccountRequestId that you specified.');
      if (r.state === 'IN_PROGRESS') {
        if (r.pendingReads > 0) {
          r.pendingReads -= 1;
          return { CreateAccountStatus: statusJson(r) };
        }
        r.completedAt = now();
        if (r.failureReason) r.state = 'FAILED';
        else {
          r.accountId = deps.vend(r.roleName);
          r.state = 'SUCCEEDED';
        }
      }
      return { CreateAccountStatus: statusJson(r) };
    },
  };
}
