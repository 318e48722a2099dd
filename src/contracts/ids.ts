import { randomBytes } from 'node:crypto';

/** Type prefixes of every opaque id; the prefix tells a reader what an id names. */
export const ID_PREFIXES = {
  team: 'team',
  token: 'tok',
  project: 'prj',
  env: 'env',
  version: 'ver',
  deployment: 'dep',
  host: 'host',
  enrollmentKey: 'enk',
  command: 'cmd',
  plan: 'plan',
  incident: 'inc',
  improvement: 'imp',
  cloud: 'cld',
  awsAccount: 'aws',
  machine: 'mch',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** A new random id such as `dep_3k9x...`; 16 random bytes in base32-ish lowercase. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBytes(10).toString('hex')}`;
}

/** A secret (API token, host credential, enrollment key) shown once and stored hashed. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}
