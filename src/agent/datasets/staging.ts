/**
 * Building a dataset tree beside its destination and swapping it into place, shared by every
 * driver: a crash leaves either the old tree or the new one at the destination, never a mix.
 * What `remove` means is the driver's business (btrfs subvolumes cannot be `rm -rf`ed when they
 * are read-only), so swapping takes it as a parameter.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';

export async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/** A hidden name for a staging or retired tree; drivers never count dot-names as datasets. */
export function tmpName(prefix: string): string {
  return `.${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Put `staged` at `dest`, replacing what was there (then `remove`d); both share a parent filesystem. */
export async function swapInto(staged: string, dest: string, remove: (p: string) => Promise<void> = (p) => rm(p, { recursive: true, force: true })): Promise<void> {
  const old = `${dest}.old-${randomBytes(4).toString('hex')}`;
  const hadOld = await rename(dest, old).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
  await rename(staged, dest);
  if (hadOld) await remove(old);
}
