/**
 * Reading a Compose file for `denv deploy`. The API takes process services' `working_dir` as an
 * absolute path on the host (DESIGN "Contract details"), while users write it relative to the
 * Compose file, so the CLI resolves it before sending.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseSpec } from '../contracts/spec.js';
import { CliError } from './cli-error.js';

export interface ComposeFile {
  /** Absolute path of the file read. */
  readonly path: string;
  /** The document with working dirs resolved: what the CLI sends as `compose`. */
  readonly doc: Record<string, unknown>;
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
  if (!isPlainObject(services)) return { ...doc };
  const resolved: Record<string, unknown> = {};
  for (const [name, service] of Object.entries(services)) {
    resolved[name] = isPlainObject(service) ? resolveService(service, composeDir) : service;
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
 * Read, resolve and validate a Compose file. Validation uses the same `parseSpec` as the server,
 * so a mistake is reported with its path before anything is sent.
 */
export async function readComposeFile(file: string): Promise<ComposeFile> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT') throw new CliError('NOT_FOUND', `no compose file at ${absolute} (pass -f <file>)`);
    throw new CliError('BAD_REQUEST', `cannot read ${absolute}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new CliError('INVALID_COMPOSE', `${absolute}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isPlainObject(parsed)) throw new CliError('INVALID_COMPOSE', `${absolute}: expected a mapping with "services"`);
  const doc = resolveWorkingDirs(parsed, path.dirname(absolute));
  try {
    parseSpec(doc);
  } catch (err) {
    throw new CliError('INVALID_COMPOSE', `${absolute}: ${(err as Error).message}`);
  }
  return { path: absolute, doc };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
