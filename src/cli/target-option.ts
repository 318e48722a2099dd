/**
 * `denv deploy --target host=<id or name>|cloud=<name>`: the API's deploy `target`
 * (`{host}` or `{cloud}`, DESIGN §11 Clouds). Pure, so its exact output is unit-tested.
 */
import { InvalidArgumentError } from 'commander';

export type DeployTarget = { readonly host: string } | { readonly cloud: string };

export const TARGET_FORMS = 'host=<host id or name> or cloud=<cloud name>';

/** `host=host_12ab` → `{host: 'host_12ab'}`; `cloud=hetzner-fsn` → `{cloud: 'hetzner-fsn'}`. */
export function parseTarget(value: string): DeployTarget {
  const m = /^(host|cloud)=(.+)$/.exec(value.trim());
  const name = m?.[2]?.trim();
  if (!m || !name || /\s/.test(name) || name.length > 100) throw new InvalidArgumentError(`expected ${TARGET_FORMS}, got "${value}"`);
  return m[1] === 'host' ? { host: name } : { cloud: name };
}
