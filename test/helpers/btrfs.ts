/**
 * A real btrfs filesystem for tests: a sparse image file under a temp dir, formatted with
 * mkfs.btrfs and loop-mounted (needs root and btrfs-progs, which .ci/run installs). A missing
 * mkfs.btrfs or a mount that fails throws: the test fails, it never skips.
 */
import { chmod, mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, runOrThrow } from '../../src/lib/exec.js';

export interface BtrfsMount {
  /** The mounted filesystem's root. */
  readonly dir: string;
  /** Unmount and delete the image (retries while the mount is busy). */
  unmount(): Promise<void>;
}

export async function mountBtrfs(sizeBytes = 2 * 1024 ** 3): Promise<BtrfsMount> {
  const base = await mkdtemp(join(tmpdir(), 'denv-btrfs-'));
  await chmod(base, 0o711); // services run as users of their own and reach their datasets below it
  const image = join(base, 'fs.img');
  const dir = join(base, 'mnt');
  await writeFile(image, '');
  await truncate(image, sizeBytes);
  await mkdir(dir);
  await runOrThrow(['mkfs.btrfs', '-q', image], { timeoutMs: 60_000 });
  await runOrThrow(['mount', '-o', 'loop', image, dir], { timeoutMs: 60_000 });
  return {
    dir,
    async unmount() {
      for (let i = 0; i < 20; i++) {
        if ((await run(['umount', dir])).exitCode === 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Paths of every subvolume on the filesystem mounted at `dir` (relative to its root). */
export async function subvolumes(dir: string): Promise<string[]> {
  const { stdout } = await runOrThrow(['btrfs', 'subvolume', 'list', dir]);
  return stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.replace(/^.* path /, ''));
}

/** `btrfs subvolume show`: its `Key: value` lines (UUID, Parent UUID, …). */
export async function subvolumeShow(path: string): Promise<Record<string, string>> {
  const { stdout } = await runOrThrow(['btrfs', 'subvolume', 'show', '--', path]);
  const out: Record<string, string> = {};
  for (const m of stdout.matchAll(/^\s+([^:\n]+):\s*(.*)$/gm)) out[m[1]!.trim()] = m[2]!.trim();
  return out;
}

/** `btrfs filesystem du -s --raw`: bytes referenced, bytes only this tree holds, bytes shared with others. */
export async function diskUsage(path: string): Promise<{ total: number; exclusive: number; shared: number }> {
  const { stdout } = await runOrThrow(['btrfs', 'filesystem', 'du', '-s', '--raw', '--', path]);
  const row = stdout.trim().split('\n').at(-1)!.trim().split(/\s+/);
  return { total: Number(row[0]), exclusive: Number(row[1]), shared: Number(row[2]) };
}
