/**
 * What a service sees of its env on Kubernetes, as the host runtimes give it (DESIGN "Contract
 * details", siblings): `DENV_ENV`, `DENV_SERVICE`, `DENV_<S>_HOST`/`DENV_<S>_PORT` for every
 * service S with a port (its Service's name and its first port, service-ports.ts), `DENV_VOLUME_<V>` (where the
 * dataset is mounted) and `PORT` (the first port). `${DENV_…}` references the Compose loader left in
 * the spec are filled in here, at plan time, from those values: nothing on the cluster fills them.
 * The agent-owned names win over the spec's own variables of the same name, as on a host.
 */
import type { ServiceSpec, Spec } from '../../../../contracts/spec-types.js';
import type { PlanNames } from './plan-names.js';
import { servicePorts } from './service-ports.js';

/** `<prefix>_<NAME>`: upper case, every other character `_` (as agent/envs/siblings.ts names them). */
export function envVariableName(prefix: string, name: string): string {
  return `${prefix}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The variables denv owns in `service`'s container, in a stable order. */
export function ownedVariables(spec: Spec, names: PlanNames, envName: string, service: string): Record<string, string> {
  const vars: Record<string, string> = { DENV_ENV: envName, DENV_SERVICE: service };
  for (const sibling of Object.keys(spec.services).sort()) {
    const port = servicePorts(spec.services[sibling]!)[0]?.port;
    if (port === undefined) continue;
    const prefix = envVariableName('DENV', sibling);
    vars[`${prefix}_HOST`] = names.services[sibling]!.service;
    vars[`${prefix}_PORT`] = String(port);
  }
  const own = spec.services[service]!;
  for (const mount of own.volumes) vars[envVariableName('DENV_VOLUME', mount.source)] ??= mount.target;
  const port = servicePorts(own)[0]?.port;
  if (port !== undefined) vars.PORT = String(port);
  return vars;
}

const DENV_REFERENCE = /\$\{(DENV_[A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$(DENV_[A-Za-z0-9_]*)/g;

/**
 * `${DENV_X}`, `${DENV_X:-default}`, `${DENV_X-default}` and `$DENV_X` replaced as Compose would
 * (agent/envs/siblings.ts `fillDenvReferences`): an unknown name becomes its default, else "".
 */
export function fillReferences(value: string, vars: Readonly<Record<string, string>>): string {
  return value.replace(DENV_REFERENCE, (_all, braced: string | undefined, op: string | undefined, dflt: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const found = Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (op === ':-' && (found === undefined || found === '')) return dflt ?? '';
    if (op === '-' && found === undefined) return dflt ?? '';
    return found ?? '';
  });
}

/**
 * Kubernetes expands `$(VAR)` in env values, command and args, and reads `$$` as `$`; denv means
 * every value literally, so a `$` before `(` or `$` is doubled. Other `$`s are left alone (Kubernetes
 * keeps them), so ordinary values read as written.
 */
export function kubeLiteral(value: string): string {
  return value.replace(/\$(?=[$(])/g, () => '$$');
}

/** The container's `env`: the spec's variables (filled, literal), then denv's. */
export function containerEnv(svc: ServiceSpec, owned: Readonly<Record<string, string>>): { name: string; value: string }[] {
  const user = Object.entries(svc.environment).filter(([name]) => !Object.hasOwn(owned, name));
  return [...user.map(([name, value]) => ({ name, value: kubeLiteral(fillReferences(value, owned)) })), ...Object.entries(owned).map(([name, value]) => ({ name, value: kubeLiteral(value) }))];
}
