/**
 * Reading a Compose file for `denv deploy`. The API takes process services' `working_dir` as an
 * absolute path on the host (DESIGN "Contract details"), while users write it relative to the
 * Compose file, so the CLI resolves it before sending.
 */
import path from 'node:path';
import { PACKED_KEY } from '../contracts/load-spec.js';
import { parseSpec, type Spec } from '../contracts/spec.js';
import { isMap } from '../contracts/compose/problems.js';
import { CliError } from './cli-error.js';
import { loadComposeFile } from './load-compose-file.js';
import { packFiles } from './pack-files.js';

export interface ComposeFile {
  /** Absolute path of the file read. */
  readonly path: string;
  /** The loaded model with working dirs resolved and files packed: what the CLI sends as `compose`. */
  readonly doc: Record<string, unknown>;
  /** The canonical Compose model as loaded (what `denv config` prints). */
  readonly model: Record<string, unknown>;
  /** Loader warnings (unset variables …) to show the user. */
  readonly warnings: readonly string[];
  /** Fields accepted without effect (`services.web.container_name` …), to show the user. */
  readonly ignored: readonly string[];
}

/**
 * A copy of the Compose document where every process service (one with no `image`) has an
 * absolute `working_dir`: a relative one is resolved against `composeDir`, and a service with a
 * `command` but no `working_dir` gets `composeDir` itself (as `docker compose` runs relative to
 * the project directory). Image services are left alone: their `working_dir` is a path inside the
 * container. Anything malformed is passed through untouched for `parseSpec` to report with its path.
 */
export function resolveWorkingDirs(doc: Readonly<Record<string, unknown>>, composeDir: string): Record<string, unknown> {
  if (!path.isAbsolute(composeDir)) throw new Error(`resolveWorkingDirs: composeDir must be absolute, got ${composeDir}`);
  const services = doc.services;
  if (!isMap(services)) return { ...doc };
  const resolved: Record<string, unknown> = {};
  for (const [name, service] of Object.entries(services)) {
    resolved[name] = isMap(service) ? resolveService(service, composeDir) : service;
  }
  return { ...doc, services: resolved };
}

function resolveService(service: Record<string, unknown>, composeDir: string): Record<string, unknown> {
  if (service.image !== undefined && service.image !== null) return service;
  const wd = service.working_dir;
  if (typeof wd === 'string' && wd !== '') {
    return path.isAbsolute(wd) ? service : { ...service, working_dir: path.resolve(composeDir, wd) };
  }
  if (wd === undefined && service.command !== undefined) return { ...service, working_dir: composeDir };
  return service;
}

/**
 * Load a Compose file per the Compose specification (`.env`, env_file, include, extends,
 * profiles; load-compose-file.ts), resolve process services' working dirs, pack the files it
 * reads or mounts beside itself (pack-files.ts), and validate the result with the same
 * `parseSpec` as the server, so every problem is reported with its path before anything is sent.
 */
export async function readComposeFile(file: string, opts: { readonly profiles?: readonly string[]; readonly unsetEnv?: 'error' | 'warn' } = {}): Promise<ComposeFile> {
  const loaded = await loadComposeFile(file, { profiles: opts.profiles ?? [] });
  const projectDir = path.dirname(loaded.path);
  const resolved = resolveWorkingDirs(loaded.model, projectDir);
  const warnings = [...loaded.warnings];
  const packed = await packFiles(resolved, projectDir, { unsetEnv: opts.unsetEnv ?? 'error', warnings });
  const doc = packed ? { ...resolved, [PACKED_KEY]: packed } : resolved;
  let spec: Spec;
  try {
    spec = parseSpec(doc);
  } catch (err) {
    throw new CliError('INVALID_COMPOSE', `${loaded.path}:\n${(err as Error).message}`);
  }
  return { path: loaded.path, model: loaded.model, doc, warnings, ignored: spec.ignored ?? [] };
}
