/**
 * The `copy` dataset driver: plain directories, works on any filesystem.
 *
 * Layout and crash-safe replace: tree-driver.ts.
 *
 * Copies keep symlinks as symlinks with their target text unchanged (never followed, so a link
 * pointing outside the dataset copies the link, not what it points to), keep modes and
 * timestamps and owners (a service's data belongs to its user: PostgreSQL refuses a data dir it
 * does not own), and skip sockets, FIFOs and device nodes (they hold no data; reading a device
 * could never end).
 */
import { cp, lchown, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { TreeDatasetDriver } from '../tree-driver.js';

/**
 * Give every entry under `dest` the owner of its counterpart under `src` (fs.cp keeps modes, not
 * owners), children first and never following a link: until a directory of the copy is handed
 * over, its user cannot swap an entry in it for a link the walk would follow.
 */
async function copyOwners(src: string, dest: string): Promise<void> {
  const [info, copied] = await Promise.all([lstat(src).catch(() => null), lstat(dest).catch(() => null)]);
  if (!info || !copied) return;
  if (info.isDirectory() && copied.isDirectory()) for (const entry of await readdir(dest)) await copyOwners(path.join(src, entry), path.join(dest, entry));
  await lchown(dest, info.uid, info.gid).catch(() => {});
}

async function copyTree(src: string, dest: string): Promise<void> {
  await cp(src, dest, {
    recursive: true,
    dereference: false,
    verbatimSymlinks: true,
    preserveTimestamps: true,
    errorOnExist: true,
    force: false,
    filter: async (from) => {
      const info = await lstat(from);
      // Device nodes would be read as data (a planted /dev/zero never ends): never copied.
      return !info.isSocket() && !info.isFIFO() && !info.isCharacterDevice() && !info.isBlockDevice();
    },
  });
  if (process.getuid?.() === 0) await copyOwners(src, dest);
}

export class CopyDatasetDriver extends TreeDatasetDriver {
  readonly kind = 'copy' as const;

  async create(env: string, name: string): Promise<string> {
    const dir = this.path(env, name);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  protected cloneTree(src: string, dest: string): Promise<void> {
    return copyTree(src, dest);
  }

  protected async removeTree(p: string): Promise<void> {
    await rm(p, { recursive: true, force: true });
  }
}
