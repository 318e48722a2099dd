/**
 * Bounded service logs (issue 10, item 10): a service's stdout and stderr go straight to
 * `<service>.log` (the process holds the descriptor, opened O_APPEND), so the agent rotates by
 * copy-and-truncate: past `maxBytes` the file is copied to `<service>.log.1` (replacing the last
 * rotated one) and truncated; the process keeps appending from the start. Lines written between
 * the copy and the truncation are lost (at most a poll's worth). The 200-line ring buffers and
 * the log APIs read through the tailer, which follows a truncated file from its new start.
 */
import { copyFile, stat, truncate } from 'node:fs/promises';

export const DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024;

/** Rotate `file` when it is larger than `maxBytes`; returns whether it did. */
export async function rotateIfLarge(file: string, maxBytes: number): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  if (!info || info.size <= maxBytes) return false;
  await copyFile(file, `${file}.1`);
  await truncate(file, 0);
  return true;
}
