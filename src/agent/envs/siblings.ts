/**
 * How the services of one env find each other (DESIGN "Contract details", siblings): every service
 * gets `DENV_<S>_HOST` and `DENV_<S>_PORT` for every service S of its env, and `${DENV_…}`
 * references the Compose loader left in place (names under `DENV_` are not interpolated at load)
 * are filled in here, when the service starts. Pure: the exact names and values are unit-tested.
 *
 * Addresses depend on who looks: a process service reaches every sibling on 127.0.0.1 at the host
 * port the agent allocated (an image service's published port); an image service on the env's
 * network reaches image siblings by service name at their container port, and process siblings
 * through the host port (reachable only with host networking; documented in docs/compose.md).
 */

/** `<prefix>_<NAME>`: the name upper-cased, every other character `_` (siblings, volumes, secrets, configs). */
export function envVariableName(prefix: string, name: string): string {
  return `${prefix}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** `DENV_<S>_…`: the service name upper-cased, every other character `_`. */
export function siblingPrefix(service: string): string {
  return envVariableName('DENV', service);
}

export interface SiblingAddress {
  readonly service: string;
  readonly host: string;
  readonly port: number;
}

/** `{DENV_DB_HOST: '127.0.0.1', DENV_DB_PORT: '20001', …}` for the given addresses. */
export function siblingEnvironment(siblings: readonly SiblingAddress[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of siblings) {
    const prefix = siblingPrefix(s.service);
    env[`${prefix}_HOST`] = s.host;
    env[`${prefix}_PORT`] = String(s.port);
  }
  return env;
}

const DENV_REFERENCE = /\$\{(DENV_[A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$(DENV_[A-Za-z0-9_]*)/g;

/**
 * Replace `${DENV_X}`, `${DENV_X:-default}`, `${DENV_X-default}` and `$DENV_X` in `value` with
 * `vars.DENV_X`, as Compose interpolation would. A name `vars` does not hold becomes its default,
 * or the empty string as an unset variable does under Compose; `missing` collects it so the
 * caller can report it.
 */
export function fillDenvReferences(value: string, vars: Readonly<Record<string, string>>, missing?: Set<string>): string {
  return value.replace(DENV_REFERENCE, (_all, braced: string | undefined, op: string | undefined, dflt: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const found = vars[name];
    if (op === ':-' && (found === undefined || found === '')) return dflt ?? '';
    if (op === '-' && found === undefined) return dflt ?? '';
    if (found === undefined) missing?.add(name);
    return found ?? '';
  });
}

/** `fillDenvReferences` over every value of an environment map. */
export function fillEnvironment(environment: Readonly<Record<string, string>>, vars: Readonly<Record<string, string>>, missing?: Set<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(environment).map(([k, v]) => [k, fillDenvReferences(v, vars, missing)]));
}

/** `fillDenvReferences` over every word of an argv (null stays null). */
export function fillArgv(argv: readonly string[] | null, vars: Readonly<Record<string, string>>, missing?: Set<string>): string[] | null {
  return argv === null ? null : argv.map((word) => fillDenvReferences(word, vars, missing));
}
