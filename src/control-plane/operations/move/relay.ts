/**
 * Moving an archive from one agent to another over their connections to the control plane, with
 * flow control: the control plane pulls a chunk from the source only when a slot of the window
 * is free, and a slot is freed when the target says the chunk is on disk. So at most `window`
 * chunks are in the air or in memory at once, however large the archive and however slow either
 * side. Pure of I/O itself: the reads and writes are passed in (the gateway's transfer frames).
 */
export interface RelayIo {
  read(offset: number, length: number): Promise<Buffer>;
  write(offset: number, data: Buffer): Promise<void>;
}

export interface RelayOptions {
  readonly chunkBytes: number;
  readonly window: number;
  readonly signal?: AbortSignal;
  /** After each chunk written: the bytes written so far. */
  readonly onProgress?: (written: number) => void;
}

export const RELAY_CHUNK_BYTES = 1024 * 1024;
export const RELAY_WINDOW = 16;

/** Copy `bytes` bytes; rejects on the first failed read or write (or abort), after the other slots stop. */
export async function relay(io: RelayIo, bytes: number, o: RelayOptions): Promise<{ chunks: number }> {
  if (!(o.chunkBytes > 0)) throw new RangeError(`relay: chunkBytes must be positive, not ${o.chunkBytes}`);
  let next = 0;
  let written = 0;
  let chunks = 0;
  let failed: unknown = null;
  const slot = async () => {
    while (failed === null && next < bytes) {
      o.signal?.throwIfAborted();
      const offset = next;
      const length = Math.min(o.chunkBytes, bytes - offset);
      next += length;
      const data = await io.read(offset, length);
      o.signal?.throwIfAborted(); // nothing is written once the move has given up
      if (data.length !== length) throw new Error(`the source answered ${data.length} bytes at offset ${offset}, not ${length}: its archive changed`);
      await io.write(offset, data);
      written += length;
      chunks++;
      o.onProgress?.(written);
    }
  };
  const slots = Array.from({ length: Math.max(1, o.window) }, () =>
    slot().catch((err: unknown) => {
      failed ??= err;
    }),
  );
  await Promise.all(slots);
  if (failed !== null) throw failed;
  return { chunks };
}
