/**
 * Which dataset driver an agent uses: `btrfs` when its dataset root is on a btrfs filesystem
 * (and btrfs-progs is installed), else `copy`. Decided once at agent start and reported in the
 * host facts (`dataset_driver`), so the control plane and its users know whether forks are O(1).
 */
import { chmod, mkdir, statfs } from 'node:fs/promises';
import { run } from '../../lib/exec.js';
import { btrfsVersion } from './btrfs/btrfs-argv.js';
import { BtrfsDatasetDriver } from './btrfs/btrfs-driver.js';
import { CopyDatasetDriver } from './copy/copy-driver.js';
import type { DatasetDriver } from './dataset-driver.js';

/** statfs f_type of btrfs (BTRFS_SUPER_MAGIC). */
export const BTRFS_MAGIC = 0x9123683e;

export async function isOnBtrfs(dir: string): Promise<boolean> {
  const info = await statfs(dir);
  return Number(info.type) === BTRFS_MAGIC;
}

async function btrfsProgsInstalled(): Promise<boolean> {
  try {
    return (await run(btrfsVersion(), { timeoutMs: 10_000 })).exitCode === 0;
  } catch {
    return false;
  }
}

/**
 * Create `root` if needed and pick its driver. `log` explains a fallback to copy on btrfs. The root
 * is traversable but not listable (0711): services running as users of their own reach their own
 * datasets below it, each dataset owned by its user (identity/ownership.ts).
 */
export async function openDatasetDriver(root: string, log: (line: string) => void = () => {}): Promise<DatasetDriver> {
  await mkdir(root, { recursive: true, mode: 0o711 });
  await chmod(root, 0o711);
  if (await isOnBtrfs(root)) {
    if (await btrfsProgsInstalled()) return new BtrfsDatasetDriver(root);
    log(`datasets: ${root} is on btrfs but the btrfs command (btrfs-progs) is missing; using the copy driver`);
  }
  return new CopyDatasetDriver(root);
}
