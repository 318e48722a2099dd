/**
 * Secrets Manager (AWS JSON 1.1, `secretsmanager.<Op>`) in one account of the local AWS API
 * server: CreateSecret, DescribeSecret, GetSecretValue and PutSecretValue on string secrets. A
 * secret is addressed by its name or full ARN (`arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>`);
 * each value written is a version, the last one AWSCURRENT (the one before AWSPREVIOUS). Errors
 * are AWS's: ResourceNotFoundException, ResourceExistsException, InvalidParameterException.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { arnIn, type AccountContext } from './account.js';
import { bad, epochSeconds, list, now } from './codec.js';
import type { FakeSecret } from './types.js';

const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const MAX_VALUE = 65536;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Secrets Manager's ARN suffix: six random characters. */
const suffix = () => [...randomBytes(6)].map((b) => ALNUM[b % ALNUM.length]).join('');

/** The secret `ref` (a name or a full ARN) names in this account, or undefined. */
export function findSecret(ctx: AccountContext, ref: unknown): FakeSecret | undefined {
  const id = String(ref ?? '');
  return ctx.state.secrets.get(id) ?? [...ctx.state.secrets.values()].find((s) => s.arn === id);
}

export function secretsApi(ctx: AccountContext): Record<string, (i: any) => unknown> {
  const { state } = ctx;
  const secretOf = (ref: unknown) => {
    const s = findSecret(ctx, ref);
    if (!s) throw bad('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return s;
  };
  const checkValue = (i: any) => {
    if (i.SecretBinary !== undefined) throw bad('InvalidParameterException', 'The stand-in keeps string secrets only (SecretString).');
    if (typeof i.SecretString !== 'string' || i.SecretString.length > MAX_VALUE) throw bad('InvalidParameterException', 'You must provide either SecretString or SecretBinary, of at most 65536 bytes.');
  };
  const write = (s: FakeSecret, value: string) => {
    const v = { id: randomUUID(), value, createdAt: now() };
    s.versions.push(v);
    s.lastChangedAt = v.createdAt;
    return v;
  };
  const stagesOf = (s: FakeSecret, id: string) => (s.versions.at(-1)!.id === id ? ['AWSCURRENT'] : s.versions.at(-2)?.id === id ? ['AWSPREVIOUS'] : []);

  return {
    CreateSecret(i) {
      if (typeof i.Name !== 'string' || !NAME.test(i.Name)) throw bad('InvalidParameterException', 'Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!');
      if (state.secrets.has(i.Name)) throw bad('ResourceExistsException', `The operation failed because the secret ${i.Name} already exists.`);
      checkValue(i);
      const s: FakeSecret = {
        arn: arnIn(ctx, 'secretsmanager', `secret:${i.Name}-${suffix()}`), name: i.Name, ...(i.Description !== undefined ? { description: i.Description } : {}),
        tags: list<{ Key: string; Value: string }>(i.Tags), versions: [], createdAt: now(), lastChangedAt: now(),
      };
      const v = write(s, i.SecretString);
      state.secrets.set(s.name, s);
      return { ARN: s.arn, Name: s.name, VersionId: v.id };
    },
    DescribeSecret(i) {
      const s = secretOf(i.SecretId);
      return {
        ARN: s.arn, Name: s.name, Description: s.description, Tags: s.tags,
        VersionIdsToStages: Object.fromEntries(s.versions.map((v) => [v.id, stagesOf(s, v.id)]).filter(([, st]) => st!.length > 0)),
        CreatedDate: epochSeconds(s.createdAt), LastChangedDate: epochSeconds(s.lastChangedAt),
      };
    },
    GetSecretValue(i) {
      const s = secretOf(i.SecretId);
      if (i.VersionId !== undefined || (i.VersionStage !== undefined && i.VersionStage !== 'AWSCURRENT')) throw bad('InvalidParameterException', 'The stand-in answers the AWSCURRENT version only.');
      const v = s.versions.at(-1)!;
      return { ARN: s.arn, Name: s.name, VersionId: v.id, SecretString: v.value, VersionStages: ['AWSCURRENT'], CreatedDate: epochSeconds(v.createdAt) };
    },
    PutSecretValue(i) {
      const s = secretOf(i.SecretId);
      checkValue(i);
      const v = write(s, i.SecretString);
      return { ARN: s.arn, Name: s.name, VersionId: v.id, VersionStages: ['AWSCURRENT'] };
    },
  };
}
