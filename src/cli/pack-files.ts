/**
 * Files a Compose file names beside itself travel with the version (issue 9): top-level
 * `secrets`/`configs` read from a `file` or from this environment (`environment: VAR`, packed as
 * `env:VAR`), and bind mounts whose source lies in the project
 * directory. The CLI reads them here and sends them as `x-denv-packed` (absolute path → tree), so
 * the host has them wherever it runs; a bind mount of any other host path stays a host path,
 * which an agent mounts only where its config allows it. Regular files and directories only
 * (symlinks, devices, FIFOs are refused), at most 4 MiB and 1000 entries in all.
 */
import { lstat, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { PackedTree } from '../contracts/spec.js';
import { isMap } from '../contracts/compose/problems.js';
import { CliError } from './cli-error.js';

/** Counted as sent (base64), with room left under the API's 4 MiB body limit for the Compose model. */
export const MAX_PACKED_BYTES = 3 * 1024 * 1024;
export const MAX_PACKED_ENTRIES = 1000;

interface Budget {
  bytes: number;
  entries: number;
}

async function packTree(root: string, budget: Budget, what: string, createMissing = false): Promise<PackedTree> {
  const info = await lstat(root).catch(() => null);
  // A missing bind source is created empty, as Compose does (bind.create_host_path).
  if (!info && createMissing) return { kind: 'dir', entries: [] };
  if (!info) throw new CliError('INVALID_COMPOSE', `${what}: ${root} does not exist`);
  const entries: { path: string; mode: number; content_b64: string }[] = [];
  const add = async (abs: string, rel: string) => {
    const st = await lstat(abs);
    if (st.isDirectory()) {
      for (const name of (await readdir(abs)).sort()) await add(path.join(abs, name), rel ? `${rel}/${name}` : name);
      return;
    }
    if (!st.isFile()) throw new CliError('INVALID_COMPOSE', `${what}: ${abs} is not a regular file or directory (symlinks, devices and FIFOs are not packed)`);
    budget.bytes += Math.ceil(st.size / 3) * 4;
    budget.entries += 1;
    if (budget.bytes > MAX_PACKED_BYTES || budget.entries > MAX_PACKED_ENTRIES) {
      throw new CliError('INVALID_COMPOSE', `${what}: the files beside the Compose file that it mounts or reads exceed ${MAX_PACKED_BYTES / 1024 / 1024} MiB (as sent, base64) or ${MAX_PACKED_ENTRIES} files; keep data in a named volume (a dataset) or build it into an image`);
    }
    entries.push({ path: rel, mode: st.mode & 0o777, content_b64: (await readFile(abs)).toString('base64') });
  };
  await add(root, '');
  return { kind: info.isDirectory() ? 'dir' : 'file', entries };
}

/**
 * The `x-denv-packed` map for a loaded model whose project directory is `projectDir`; null when
 * nothing needs packing. `unsetEnv`: what an `environment:` secret whose variable is unset does — `error` (deploy: a
 * secret is never sent empty by accident) or `warn` (`denv config`, like `docker compose config`).
 */
export async function packFiles(
  model: Readonly<Record<string, unknown>>,
  projectDir: string,
  opts: { readonly env?: Readonly<Record<string, string | undefined>>; readonly unsetEnv?: 'error' | 'warn'; readonly warnings?: string[] } = {},
): Promise<Record<string, PackedTree> | null> {
  const env = opts.env ?? process.env;
  const budget: Budget = { bytes: 0, entries: 0 };
  const packed: Record<string, PackedTree> = {};
  for (const kind of ['secrets', 'configs'] as const) {
    const defs = model[kind];
    if (!isMap(defs)) continue;
    for (const [name, def] of Object.entries(defs)) {
      if (isMap(def) && typeof def.file === 'string' && !packed[def.file]) packed[def.file] = await packTree(def.file, budget, `${kind}.${name}.file`);
      if (isMap(def) && typeof def.environment === 'string') {
        const value = env[def.environment];
        if (value === undefined) {
          const message = `${kind}.${name}.environment: ${def.environment} is not set in this environment`;
          if (opts.unsetEnv !== 'warn') throw new CliError('INVALID_COMPOSE', message);
          opts.warnings?.push(`${message}; deploying needs it`);
        }
        packed[`env:${def.environment}`] = { kind: 'file', entries: [{ path: '', mode: 0o400, content_b64: Buffer.from(value ?? '').toString('base64') }] };
      }
    }
  }
  const inside = (p: string) => p === projectDir || p.startsWith(`${projectDir}${path.sep}`);
  const services = isMap(model.services) ? model.services : {};
  for (const [name, svc] of Object.entries(services)) {
    if (!isMap(svc) || !Array.isArray(svc.volumes)) continue;
    for (const [i, v] of svc.volumes.entries()) {
      if (isMap(v) && v.type === 'bind' && typeof v.source === 'string' && inside(v.source) && !packed[v.source]) {
        const create = !(isMap(v.bind) && v.bind.create_host_path === false);
        packed[v.source] = await packTree(v.source, budget, `services.${name}.volumes.${i}`, create);
      }
    }
  }
  return Object.keys(packed).length > 0 ? packed : null;
}
