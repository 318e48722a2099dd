/**
 * Bounded service logs (issue 10, item 10): a service's stdout and stderr go straight to
 * `<service>.log` (the process holds the descriptor, opened O_APPEND, and keeps it across agent
 * restarts), so the agent cannot rotate by rename — the process would go on writing into the
 * renamed file. It rotates by copy-and-truncate instead: past `maxBytes` the file is copied to
 * `<service>.log.1` (replacing the last rotated one) — whole when it is at most twice the cap, else
 * only its newest `maxBytes` (from a line start) —
 * what the service appended during the copy is copied after it, and the file is truncated; the
 * process keeps appending from the start. Only the tail is copied because the file can be far
 * past the cap when a check comes (a service printing 10 MB/s between two polls of a busy agent):
 * copying all of it needed as much free space again, and on a small disk the copy itself filled
 * it and the service died on ENOSPC. So the disk holds at most the live file, `.1` and its copy
 * (each at most twice `maxBytes` plus what one poll lets through); a first line in `.1` says how much of
 * the head was dropped.
 * The copy is written beside `.1` and renamed over it, so `.1` is always a whole rotated file,
 * never one half-written (a reader during a rotation saw an empty `.1`).
 * Only lines written between the last catch-up read and the truncation (a few microseconds) can
 * be lost. The 200-line ring buffers and the log APIs read through the tailer, which follows a
 * truncated file from its new start.
 */
import { open, rename, stat, type FileHandle } from 'node:fs/promises';

export const DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024;

const CHUNK = 1024 * 1024;
/** Catch-up rounds before truncating anyway: a service writing faster than we copy loses the rest. */
const CATCH_UP_ROUNDS = 8;

/** Rotate `file` when it is larger than `maxBytes`; returns whether it did. */
export async function rotateIfLarge(file: string, maxBytes: number): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  if (!info || info.size <= maxBytes) return false;
  const source = await open(file, 'r+');
  const next = `${file}.1.tmp`;
  try {
    const target = await open(next, 'w');
    try {
      const buf = Buffer.allocUnsafe(CHUNK);
      let copied = await tailStart(source, (await source.stat()).size, maxBytes, buf);
      if (copied > 0) await target.write(`[denv: ${copied} earlier bytes of this log were dropped: it grew past its cap of ${maxBytes} bytes between two checks]\n`);
      for (let round = 0; round < CATCH_UP_ROUNDS; round++) {
        const end = (await source.stat()).size;
        if (end <= copied && round > 0) break;
        while (copied < end) {
          const { bytesRead } = await source.read(buf, 0, Math.min(CHUNK, end - copied), copied);
          if (bytesRead === 0) break;
          await target.write(buf, 0, bytesRead);
          copied += bytesRead;
        }
      }
    } finally {
      await target.close();
    }
    // Truncate first: the fewer steps between the last catch-up and the truncation, the fewer lines lost.
    await source.truncate(0);
    await rename(next, `${file}.1`);
  } finally {
    await source.close();
  }
  return true;
}

/** Where the copy of a `size`-byte file starts: 0 when it is at most twice `maxBytes` (a check
 *  caught it soon after it passed the cap), else the first line start among its last `maxBytes`
 *  (or `size - maxBytes` when no newline is in the first chunk). */
async function tailStart(source: FileHandle, size: number, maxBytes: number, buf: Buffer): Promise<number> {
  if (size <= 2 * maxBytes) return 0;
  const from = size - maxBytes;
  // The byte before `from` tells whether `from` already is a line start.
  const { bytesRead } = await source.read(buf, 0, Math.min(buf.length, maxBytes + 1), from - 1);
  const newline = buf.subarray(0, bytesRead).indexOf(0x0a);
  return newline < 0 ? from : from + newline;
}
