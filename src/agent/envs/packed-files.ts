/**
 * Secrets, configs and bind-mounted files of a version (Spec.files, packed by the CLI) written out
 * on the host, one directory per service so services with different users never share a file:
 *
 *   <workloads>/<env>/files/<version>/<service>/secrets/<name>    one file per secret
 *   <workloads>/<env>/files/<version>/<service>/configs/<name>    one file per config
 *   <workloads>/<env>/files/<version>/<service>/binds/<n>         a bind mount's file or directory
 *
 * A process service owns its directory (0700) and its files (secrets 0400, configs 0444 unless
 * the Compose file gives a mode without special bits) and finds each at the path in
 * `DENV_SECRET_<NAME>` / `DENV_CONFIG_<NAME>`. An image service's directory stays root's (0700):
 * the files reach the container only through their read-only mounts. Contents never appear in
 * logs, events or evidence. Rewritten on every start (idempotent), removed with the env.
 *
 * Written by root next to directories a service's user may own, so nothing here follows a link
 * that user could plant: a tree is built in a root-only staging directory (new files, O_EXCL),
 * owners are set children first with lchown, and the tree is renamed into place; an old tree is
 * renamed into the staging directory (out of the user's reach) before it is removed.
 */
import { createHash } from 'node:crypto';
import { chmod, lchown, lstat, mkdir, mkdtemp, readdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import type { FileGrant, PackedTree, ServiceSpec } from '../../contracts/spec.js';
import { assertSafeName } from '../files.js';
import type { Identity } from '../identity/identity.js';
import { envWorkloadsDir } from './env-dirs.js';
import { envVariableName } from './siblings.js';

/** `DENV_SECRET_<NAME>` / `DENV_CONFIG_<NAME>`: the name upper-cased, every other character `_`. */
export function grantVariable(kind: 'secret' | 'config', name: string): string {
  return envVariableName(`DENV_${kind.toUpperCase()}`, name);
}

/** Children first, then `p` itself, never following a link (lchown). */
async function ownPostOrder(p: string, identity: Identity): Promise<void> {
  const info = await lstat(p);
  if (info.isDirectory()) for (const name of await readdir(p)) await ownPostOrder(path.join(p, name), identity);
  await lchown(p, identity.uid, identity.gid);
}

/** Build `tree` at `dest` (see the header for why through a staging directory). `mode`: files' mode, special bits dropped. */
async function writeTree(dest: string, tree: PackedTree, owner: Identity | null, mode: number | null): Promise<void> {
  const parent = path.dirname(dest);
  await mkdir(parent, { recursive: true, mode: 0o711 });
  const staging = await mkdtemp(path.join(parent, '.staging-'));
  try {
    const root = path.join(staging, 'tree');
    if (tree.kind === 'dir') await mkdir(root, { mode: 0o755 });
    for (const entry of tree.entries) {
      const file = tree.kind === 'file' ? root : path.join(root, entry.path);
      const rel = path.relative(root, file);
      if (tree.kind === 'dir' && (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))) throw new DenvError('AGENT_ERROR', `packed file "${entry.path}" is outside its tree`);
      await mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
      await writeFile(file, Buffer.from(entry.content_b64, 'base64'), { mode: 0o600, flag: 'wx' });
      await chmod(file, (mode ?? entry.mode) & 0o777);
    }
    if (owner) await ownPostOrder(root, owner);
    await rename(dest, path.join(staging, 'old')).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await rename(root, dest);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** `<workloads>/<env>/files/<version>/<service>`, made 0700 and owned by `owner` (root's when null). */
async function serviceFilesDir(workloads: string, id: { env: string; version: string; service: string }, owner: Identity | null): Promise<string> {
  assertSafeName('version', id.version);
  assertSafeName('service', id.service);
  const dir = path.join(envWorkloadsDir(workloads, id.env), 'files', id.version, id.service);
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o711 });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (owner) await lchown(dir, owner.uid, owner.gid);
  return dir;
}

function treeOf(files: Readonly<Record<string, PackedTree>> | undefined, key: string): PackedTree {
  const tree = files?.[key];
  if (!tree) throw new DenvError('AGENT_ERROR', `${key.replace(':', ' ')} has no content in this version`);
  return tree;
}

/** Process services: write the service's secrets and configs; returns `DENV_SECRET_*` / `DENV_CONFIG_*` → path. */
export async function writeGrants(
  workloads: string,
  id: { env: string; version: string; service: string },
  spec: ServiceSpec,
  files: Readonly<Record<string, PackedTree>> | undefined,
  identity: Identity | null,
): Promise<Record<string, string>> {
  const grants = [...(spec.secrets ?? []).map((g) => ['secret', g] as const), ...(spec.configs ?? []).map((g) => ['config', g] as const)];
  if (grants.length === 0) return {};
  const vars: Record<string, string> = {};
  const base = await serviceFilesDir(workloads, id, identity);
  for (const [kind, grant] of grants as readonly (readonly ['secret' | 'config', FileGrant])[]) {
    assertSafeName(kind, grant.source);
    const dest = path.join(base, `${kind}s`, grant.source);
    await writeTree(dest, treeOf(files, `${kind}:${grant.source}`), identity, grant.mode ?? (kind === 'secret' ? 0o400 : 0o444));
    vars[grantVariable(kind, grant.source)] = dest;
  }
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
export async function fileMounts(workloads: string, id: { env: string; version: string; service: string }, spec: ServiceSpec, files: Readonly<Record<string, PackedTree>> | undefined): Promise<FileMount[]> {
  const mounts: FileMount[] = [];
  const packed = (spec.binds ?? []).filter((b) => b.source.startsWith('bind:'));
  const grants = [...(spec.secrets ?? []).map((g) => ['secret', g] as const), ...(spec.configs ?? []).map((g) => ['config', g] as const)];
  const base = packed.length + grants.length > 0 ? await serviceFilesDir(workloads, id, null) : '';
  for (const b of spec.binds ?? []) {
    // A host path (not packed) is mounted as it is: admit decides whether this host allows it.
    if (!b.source.startsWith('bind:')) {
      // Resolved first: Docker follows links, so the check in admit must see where one leads.
      mounts.push({ source: await realpath(b.source).catch(() => b.source), target: b.target, read_only: b.read_only, host_path: true });
      continue;
    }
    const dest = path.join(base, 'binds', createHash('sha256').update(b.source).digest('hex').slice(0, 16));
    await writeTree(dest, treeOf(files, b.source), null, null);
    mounts.push({ source: dest, target: b.target, read_only: b.read_only, host_path: false });
  }
  for (const [kind, g] of grants as readonly (readonly ['secret' | 'config', FileGrant])[]) {
    assertSafeName(kind, g.source);
    const dest = path.join(base, `${kind}s`, g.source);
    // The container runs as a user we do not know: readable inside it; the host path stays in a root-only dir.
    await writeTree(dest, treeOf(files, `${kind}:${g.source}`), null, g.mode ?? 0o444);
    mounts.push({ source: dest, target: g.target.startsWith('/') ? g.target : `/run/secrets/${g.target}`, read_only: true, host_path: false });
  }
  return mounts;
}
