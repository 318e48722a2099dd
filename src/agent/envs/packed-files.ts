/**
 * Secrets, configs and bind-mounted files of a version (Spec.files, packed by the CLI) written out
 * on the host, under the env's own directory:
 *
 *   <workloads>/<env>/files/<version>/secrets/<name>     one file per secret (Compose `secrets`)
 *   <workloads>/<env>/files/<version>/configs/<name>     one file per config
 *   <workloads>/<env>/files/<version>/binds/<n>          a bind mount's file or directory
 *
 * Owned by the service's user (process services) and read-only for it: secrets 0400, configs
 * 0444 unless the Compose file gives a mode. A process service finds each at the path in
 * `DENV_SECRET_<NAME>` / `DENV_CONFIG_<NAME>`; an image service gets them mounted read-only at
 * their Compose targets. Contents never appear in logs, events or evidence. Rewritten on every
 * start (idempotent), removed with the env.
 */
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { FileGrant, PackedTree, ServiceSpec } from '../../contracts/spec.js';
import type { Identity } from '../identity/identity.js';
import { envWorkloadsDir } from './env-dirs.js';

/** `DENV_SECRET_<NAME>` / `DENV_CONFIG_<NAME>`: the name upper-cased, every other character `_`. */
export function grantVariable(kind: 'secret' | 'config', name: string): string {
  return `DENV_${kind.toUpperCase()}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

async function writeTree(dest: string, tree: PackedTree, identity: Identity | null, mode: number | null): Promise<void> {
  await rm(dest, { recursive: true, force: true });
  const own = async (p: string) => {
    if (identity) await chown(p, identity.uid, identity.gid);
  };
  if (tree.kind === 'dir') {
    await mkdir(dest, { recursive: true, mode: 0o755 });
    await own(dest);
  } else await mkdir(path.dirname(dest), { recursive: true, mode: 0o711 });
  for (const entry of tree.entries) {
    const file = tree.kind === 'file' ? dest : path.join(dest, entry.path);
    if (!file.startsWith(dest)) throw new DenvError('AGENT_ERROR', `packed file ${entry.path} escapes its tree`);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
    await writeFile(file, Buffer.from(entry.content_b64, 'base64'), { mode: 0o600 });
    await own(file);
    await chmod(file, mode ?? entry.mode);
  }
}

function filesDir(workloads: string, env: string, version: string): string {
  return path.join(envWorkloadsDir(workloads, env), 'files', version);
}

function treeOf(files: Readonly<Record<string, PackedTree>> | undefined, key: string): PackedTree {
  const tree = files?.[key];
  if (!tree) throw new DenvError('AGENT_ERROR', `${key.replace(':', ' ')} has no content in this version`);
  return tree;
}

/** Process services: write the service's secrets and configs; returns `DENV_SECRET_*` / `DENV_CONFIG_*` → path. */
export async function writeGrants(
  workloads: string,
  id: { env: string; version: string },
  spec: ServiceSpec,
  files: Readonly<Record<string, PackedTree>> | undefined,
  identity: Identity | null,
): Promise<Record<string, string>> {
  const vars: Record<string, string> = {};
  const base = filesDir(workloads, id.env, id.version);
  const write = async (kind: 'secret' | 'config', grant: FileGrant) => {
    const dest = path.join(base, `${kind}s`, grant.source);
    await writeTree(dest, treeOf(files, `${kind}:${grant.source}`), identity, grant.mode ?? (kind === 'secret' ? 0o400 : 0o444));
    vars[grantVariable(kind, grant.source)] = dest;
  };
  for (const g of spec.secrets ?? []) await write('secret', g);
  for (const g of spec.configs ?? []) await write('config', g);
  return vars;
}

export interface FileMount {
  readonly source: string;
  readonly target: string;
  readonly read_only: boolean;
  /** A host path the Compose file named (not packed with the version): allowed only by the agent config. */
  readonly host_path: boolean;
}

/** Image services: write the service's binds, secrets and configs; returns the read-only mounts for its container. */
export async function fileMounts(workloads: string, id: { env: string; version: string }, spec: ServiceSpec, files: Readonly<Record<string, PackedTree>> | undefined): Promise<FileMount[]> {
  const mounts: FileMount[] = [];
  const base = filesDir(workloads, id.env, id.version);
  for (const b of spec.binds ?? []) {
    // A host path (not packed) is mounted as it is: the pipeline decides whether this host allows it.
    if (!b.source.startsWith('bind:')) {
      mounts.push({ source: b.source, target: b.target, read_only: b.read_only, host_path: true });
      continue;
    }
    const dest = path.join(base, 'binds', createHash('sha256').update(b.source).digest('hex').slice(0, 16));
    await writeTree(dest, treeOf(files, b.source), null, null);
    mounts.push({ source: dest, target: b.target, read_only: b.read_only, host_path: false });
  }
  for (const [kind, grants] of [['secret', spec.secrets ?? []], ['config', spec.configs ?? []]] as const) {
    for (const g of grants) {
      const dest = path.join(base, `${kind}s`, g.source);
      // Containers run as a user we do not know: readable by all in a directory only root lists.
      await writeTree(dest, treeOf(files, `${kind}:${g.source}`), null, g.mode ?? 0o444);
      mounts.push({ source: dest, target: g.target.startsWith('/') ? g.target : `/run/secrets/${g.target}`, read_only: true, host_path: false });
    }
  }
  return mounts;
}
