import { open } from 'node:fs/promises';

/** Read at most this much from the end of a log to find its last lines. */
const TAIL_WINDOW = 64 * 1024;

/**
 * The last `lines` lines written to `file` at or after byte `fromOffset` (where the current run
 * of the service started appending), without trailing empty lines. A missing file gives [].
 */
export async function readLogTail(file: string, fromOffset: number, lines = 20): Promise<string[]> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(fromOffset, size - TAIL_WINDOW);
    if (start >= size) return [];
    const buf = Buffer.alloc(size - start);
    await handle.read(buf, 0, buf.length, start);
    const all = buf.toString('utf8').split('\n');
    while (all.length > 0 && all[all.length - 1]!.trim() === '') all.pop();
    return all.slice(-lines);
  } finally {
    await handle.close();
  }
}
