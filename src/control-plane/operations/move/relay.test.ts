/**
 * relay() over an in-memory I/O boundary: the target ends up with the source's exact bytes in
 * ceil(bytes / chunk) chunks; no more than `window` chunks are ever read and not yet written
 * (and one write acknowledged lets exactly one more read start); a failed read or write, a
 * short read or an abort rejects relay and starts no further read.
 */
import { describe, expect, it } from 'vitest';
import { relay, type RelayIo } from './relay.js';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves `until(n)` once `count()` has reached n (checked whenever `bump()` is called). */
function counter() {
  let n = 0;
  const waiters: { n: number; d: Deferred<void> }[] = [];
  return {
    count: () => n,
    bump() {
      n++;
      for (const w of waiters.filter((x) => x.n <= n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.d.resolve();
      }
    },
    until(target: number): Promise<void> {
      if (n >= target) return Promise.resolve();
      const d = deferred<void>();
      waiters.push({ n: target, d });
      return d.promise;
    },
  };
}

/**
 * A source buffer and a target buffer. Reads answer at once unless `hold.reads`, writes land at
 * once unless `hold.writes` (both switchable at any time); held calls wait in `heldReads` /
 * `heldWrites` for the test.
 * `maxInFlight`: the most chunks ever read (asked for) and not yet written.
 */
function memoryIo(source: Buffer, hold: { reads?: boolean; writes?: boolean } = {}) {
  const target = Buffer.alloc(source.length, 0xee);
  const reads = counter();
  const writes = counter();
  const readLog: { offset: number; length: number }[] = [];
  const heldReads: { offset: number; length: number; d: Deferred<Buffer> }[] = [];
  const heldWrites: { offset: number; d: Deferred<void> }[] = [];
  let writesDone = 0;
  let maxInFlight = 0;
  const io: RelayIo = {
    async read(offset, length) {
      readLog.push({ offset, length });
      maxInFlight = Math.max(maxInFlight, readLog.length - writesDone);
      const d = deferred<Buffer>();
      if (hold.reads) heldReads.push({ offset, length, d });
      else d.resolve(chunkOf(source.subarray(offset, offset + length)));
      reads.bump();
      return d.promise;
    },
    async write(offset, chunk) {
      const d = deferred<void>();
      if (hold.writes) heldWrites.push({ offset, d });
      else d.resolve();
      writes.bump();
      await d.promise;
      const data = chunk;
      data.copy(target, offset);
      writesDone++;
    },
  };
  return { io, hold, target, reads, writes, readLog, heldReads, heldWrites, maxInFlight: () => maxInFlight };
}

/** A chunk as the gateway hands it over: its bytes, copied (not a view on the source). */
const chunkOf = (b: Buffer): Buffer => Buffer.from(b);

function pattern(bytes: number): Buffer {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) b[i] = (i * 31 + 7) & 0xff;
  return b;
}

/** Let every pending promise reaction run (one event-loop turn: not a timer, nothing waits on time). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const CHUNK = 16;

describe('relay', () => {
  it.each([0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 10 * CHUNK + 3])('copies %i bytes exactly, in ceil(bytes / chunk) chunks', async (bytes) => {
    const source = pattern(bytes);
    const m = memoryIo(source);
    const progress: number[] = [];
    const { chunks } = await relay(m.io, bytes, { chunkBytes: CHUNK, window: 3, onProgress: (w) => progress.push(w) });
    const expected = Math.ceil(bytes / CHUNK);
    expect(chunks).toBe(expected);
    expect(m.target.equals(source)).toBe(true);
    // Every chunk read once, at its own offset, none past the end.
    expect(m.readLog.map((r) => r.offset).sort((a, b) => a - b)).toEqual(Array.from({ length: expected }, (_, i) => i * CHUNK));
    expect(m.readLog.reduce((sum, r) => sum + r.length, 0)).toBe(bytes);
    expect(progress).toHaveLength(expected);
    expect(progress.at(-1) ?? 0).toBe(bytes);
  });

  it('keeps at most `window` chunks read and not written; one written chunk lets exactly one more read start', async () => {
    const window = 4;
    const source = pattern(10 * CHUNK);
    const m = memoryIo(source, { writes: true });
    const done = relay(m.io, source.length, { chunkBytes: CHUNK, window });

    await m.writes.until(window); // every slot now waits for its write
    expect(m.reads.count()).toBe(window);
    expect(m.heldWrites.map((w) => w.offset)).toEqual([0, 16, 32, 48]);

    m.heldWrites[1]!.d.resolve();
    await m.writes.until(window + 1); // the freed slot read the next chunk and waits on its write
    expect(m.reads.count()).toBe(window + 1);
    expect(m.readLog.at(-1)).toEqual({ offset: 64, length: CHUNK });

    // Release the other writes one at a time: each lets exactly one more chunk start (until none is left).
    let released = 1;
    for (let i = 0; i < 10; i++) {
      if (i === 1) continue;
      m.heldWrites[i]!.d.resolve();
      released++;
      const issued = Math.min(10, window + released);
      await m.writes.until(issued);
      expect(m.reads.count()).toBe(issued);
    }
    expect(await done).toEqual({ chunks: 10 });
    expect(m.target.equals(source)).toBe(true);
    expect(m.maxInFlight()).toBe(window);
    expect(m.reads.count()).toBe(10);
  });

  it('with reads held, asks for exactly `window` chunks', async () => {
    const source = pattern(10 * CHUNK);
    const m = memoryIo(source, { reads: true });
    const done = relay(m.io, source.length, { chunkBytes: CHUNK, window: 3 });
    await m.reads.until(3);
    expect(m.readLog).toEqual([0, 16, 32].map((offset) => ({ offset, length: CHUNK })));
    // Answering one read lets that slot write and then ask for the next chunk, and only it.
    m.heldReads[0]!.d.resolve(chunkOf(source.subarray(0, CHUNK)));
    await m.reads.until(4);
    expect(m.writes.count()).toBe(1);
    expect(m.readLog.at(-1)).toEqual({ offset: 48, length: CHUNK });
    // Drain: answer every read as it arrives.
    for (let i = 1; i < 10; i++) {
      await m.reads.until(Math.min(10, i + 3));
      const r = m.heldReads[i]!;
      r.d.resolve(chunkOf(source.subarray(r.offset, r.offset + r.length)));
    }
    expect(await done).toEqual({ chunks: 10 });
    expect(m.target.equals(source)).toBe(true);
    expect(m.maxInFlight()).toBe(3);
  });

  it('rejects with a failed read, and starts no read after it', async () => {
    const source = pattern(10 * CHUNK);
    const m = memoryIo(source, { reads: true });
    const done = relay(m.io, source.length, { chunkBytes: CHUNK, window: 2 });
    await m.reads.until(2);
    const boom = new Error('source gone');
    m.heldReads[0]!.d.reject(boom);
    await settle();
    // From here a read would answer at once (so a wrong one shows in the count instead of hanging).
    m.hold.reads = false;
    // The other slot's read answers after the failure: its chunk is written, then it stops.
    m.heldReads[1]!.d.resolve(chunkOf(source.subarray(CHUNK, 2 * CHUNK)));
    await expect(done).rejects.toBe(boom);
    expect(m.reads.count()).toBe(2);
    expect(m.writes.count()).toBe(1);
  });

  it('rejects with a failed write, and starts no read after it', async () => {
    const source = pattern(10 * CHUNK);
    const m = memoryIo(source, { writes: true });
    const done = relay(m.io, source.length, { chunkBytes: CHUNK, window: 2 });
    await m.writes.until(2);
    const boom = new Error('target disk full');
    m.heldWrites[0]!.d.reject(boom);
    await settle();
    m.hold.writes = false;
    m.heldWrites[1]!.d.resolve();
    await expect(done).rejects.toBe(boom);
    expect(m.readLog.map((r) => r.offset)).toEqual([0, CHUNK]);
    expect(m.writes.count()).toBe(2);
  });

  it('rejects a short read: the archive changed', async () => {
    const source = pattern(3 * CHUNK);
    const m = memoryIo(source, { reads: true });
    const done = relay(m.io, source.length, { chunkBytes: CHUNK, window: 1 });
    await m.reads.until(1);
    m.heldReads[0]!.d.resolve(chunkOf(source.subarray(0, CHUNK - 1)));
    await expect(done).rejects.toThrow('the source answered 15 bytes at offset 0, not 16: its archive changed');
    expect(m.reads.count()).toBe(1);
    expect(m.writes.count()).toBe(0);
  });

  it('rejects at once, reading nothing, when the signal is already aborted', async () => {
    const m = memoryIo(pattern(4 * CHUNK));
    const reason = new Error('deployment cancelled');
    await expect(relay(m.io, 4 * CHUNK, { chunkBytes: CHUNK, window: 2, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(m.reads.count()).toBe(0);
    expect(m.writes.count()).toBe(0);
  });

  it('stops reading once aborted mid-way: chunks in the air finish, no new chunk starts', async () => {
    const source = pattern(10 * CHUNK);
    const m = memoryIo(source, { writes: true });
    const ctl = new AbortController();
    const done = relay(m.io, source.length, { chunkBytes: CHUNK, window: 2, signal: ctl.signal });
    await m.writes.until(2);
    const reason = new Error('deployment cancelled');
    ctl.abort(reason);
    for (const w of m.heldWrites) w.d.resolve();
    await expect(done).rejects.toBe(reason);
    expect(m.reads.count()).toBe(2);
  });
});
