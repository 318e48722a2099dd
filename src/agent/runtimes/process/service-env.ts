/**
 * What a process service sees: pure builders for its environment and its paths, so the exact
 * contract (DESIGN "Contract details") is unit-tested without starting anything.
 */
import path from 'node:path';
import type { ServiceSpec } from '../../../contracts/spec.js';
import { envVariableName, fillEnvironment } from '../../envs/siblings.js';

/** Inherited from the agent; everything else the service gets is explicit. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR'] as const;
/** A service's PATH when the agent has none (or none its user can search). */
export const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/** `DENV_VOLUME_<NAME>`: the volume name upper-cased, every other character `_`. */
export function volumeEnvName(volume: string): string {
  return envVariableName('DENV_VOLUME', volume);
}

export interface ServiceIdentity {
  readonly env: string;
  readonly version: string;
  readonly service: string;
}

/**
 * The whole environment of a service process: a few inherited variables, `DENV_ENV`,
 * `DENV_VERSION`, `DENV_SERVICE`, then the spec's `environment`, then `PORT` and one
 * `DENV_VOLUME_*` per dataset (these last win: the agent owns them).
 */
export function serviceEnvironment(
  inherited: Readonly<Record<string, string | undefined>>,
  id: ServiceIdentity,
  spec: ServiceSpec,
  port: number,
  datasets: Readonly<Record<string, string>>,
  siblings: Readonly<Record<string, string>> = {},
  home: string | null = null,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED) {
    const value = inherited[key];
    if (value !== undefined) env[key] = value;
  }
  if (!env.PATH) env.PATH = FALLBACK_PATH; // none, or none its user can search
  // A service running as a user of its own gets its work dir as HOME (the agent's is not its to read).
  if (home !== null) env.HOME = home;
  // What the agent owns: `${DENV_…}` in the spec's environment is filled from all of it.
  const owned: Record<string, string> = { DENV_ENV: id.env, DENV_VERSION: id.version, DENV_SERVICE: id.service, ...siblings, PORT: String(port) };
  for (const [name, dir] of Object.entries(datasets)) owned[volumeEnvName(name)] = dir;
  Object.assign(env, owned, fillEnvironment(spec.environment, owned));
  env.PORT = owned.PORT!;
  for (const [name, dir] of Object.entries(datasets)) env[volumeEnvName(name)] = dir;
  return env;
}

/** Where a service's stdout and stderr go: `<dataDir>/logs/<env>/<version>/<service>.log`. */
export function serviceLogPath(dataDir: string, id: ServiceIdentity): string {
  return path.join(dataDir, 'logs', id.env, id.version, `${id.service}.log`);
}

/** The env's own directory, holding `state.json` (the agent's, mode 0600). */
export function envDir(dataDir: string, env: string): string {
  return path.join(dataDir, 'envs', env);
}

/** The key of one service of one version: also its owner string in the port registry. */
export function serviceKey(id: ServiceIdentity): string {
  return `${id.env}/${id.version}/${id.service}`;
}

/** Every log of the env: `<dataDir>/logs/<env>`. */
export function envLogDir(dataDir: string, env: string): string {
  return path.join(dataDir, 'logs', env);
}
