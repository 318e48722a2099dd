/**
 * `denv deploy --target host=<id or name>|cloud=<name>|aws_account=<name>`: the API's deploy
 * `target` (`{host}`, `{cloud}` or `{aws_account}`, DESIGN §9, §11). A kubernetes env names its
 * cluster agent as `host=`. Pure, so its exact output is unit-tested.
 */
import { InvalidArgumentError } from 'commander';

export type DeployTarget = { readonly host: string } | { readonly cloud: string } | { readonly aws_account: string };

export const TARGET_FORMS = 'host=<host id or name>, cloud=<cloud name> or aws_account=<account name>';

/** `host=host_12ab` → `{host: 'host_12ab'}`; `cloud=hetzner-fsn` → `{cloud: 'hetzner-fsn'}`. */
export function parseTarget(value: string): DeployTarget {
  const m = /^(host|cloud|aws_account)=(.+)$/.exec(value.trim());
  const name = m?.[2]?.trim();
  if (!m || !name || /\s/.test(name) || name.length > 100) throw new InvalidArgumentError(`expected ${TARGET_FORMS}, got "${value}"`);
  return m[1] === 'host' ? { host: name } : m[1] === 'cloud' ? { cloud: name } : { aws_account: name };
}
