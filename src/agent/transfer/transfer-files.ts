/**
 * A transfer's archive on an agent (`env move`, contracts/protocol.ts "Transfers"):
 *
 *   <dataDir>/transfers/<id>.out    written by env.export on the source, read in chunks
 *   <dataDir>/transfers/<id>.json   its description (size, sha256, datasets): env.export again answers from it
 *   <dataDir>/transfers/<id>.in     written in chunks on the target, unpacked by env.import
 *
 * Reads and writes are positional (a chunk lands at its own offset, so a chunk sent twice changes
 * nothing); `transfer_close` removes the files; what a crash left is removed a day later
 * (sweepTransfers, at agent start). Files are the agent's alone (0600 in a 0700 directory).
 */
import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DenvError } from '../../contracts/errors.js';
import { encodeBinaryFrame } from '../../contracts/binary-frame.js';
import { TRANSFER_ID, type AgentMessage } from '../../contracts/protocol.js';

export type TransferSide = 'out' | 'in' | 'json';

/** Transfer files older than this are left from a crash or an abandoned move. */
const STALE_MS = 24 * 60 * 60_000;

export function transfersDir(dataDir: string): string {
  return path.join(dataDir, 'transfers');
}

export function transferFile(dataDir: string, transfer: string, side: TransferSide): string {
  if (!TRANSFER_ID.test(transfer)) throw new DenvError('BAD_REQUEST', `transfer: "${transfer}" is not a transfer id`);
  return path.join(transfersDir(dataDir), `${transfer}.${side}`);
}

/** Data dirs whose transfers directory this process has made (or found): a chunk write does not ask again. */
const ensured = new Set<string>();

export async function ensureTransfersDir(dataDir: string): Promise<void> {
  if (ensured.has(dataDir)) return;
  await mkdir(transfersDir(dataDir), { recursive: true, mode: 0o700 });
  ensured.add(dataDir);
}

/** Size and sha256 of a file, read as a stream. */
export async function digestFile(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** `transfer_read`: up to `length` bytes of the source archive at `offset` (none past its end). */
export async function readChunk(dataDir: string, transfer: string, offset: number, length: number): Promise<Buffer> {
  const fh = await open(transferFile(dataDir, transfer, 'out'), 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** `transfer_write`: put `data` at `offset` of the target archive (made on the first write). */
export async function writeChunk(dataDir: string, transfer: string, offset: number, data: Buffer): Promise<void> {
  await ensureTransfersDir(dataDir);
  // Created on the first write, never truncated: chunks arrive in any order.
  const fh = await open(transferFile(dataDir, transfer, 'in'), constants.O_WRONLY | constants.O_CREAT, 0o600);
  try {
    let done = 0;
    while (done < data.length) done += (await fh.write(data, done, data.length - done, offset + done)).bytesWritten;
  } finally {
    await fh.close();
  }
}

/** `transfer_close`: the transfer is over (moved or abandoned): its files go. */
export async function closeTransfer(dataDir: string, transfer: string): Promise<void> {
  for (const side of ['out', 'in', 'json'] as const) await rm(transferFile(dataDir, transfer, side), { force: true });
  await rm(`${transferFile(dataDir, transfer, 'out')}.tmp`, { force: true });
}

/** Remove transfer files a crash or an abandoned move left (older than a day). */
export async function sweepTransfers(dataDir: string, now = Date.now()): Promise<number> {
  const dir = transfersDir(dataDir);
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const p = path.join(dir, name);
    const info = await stat(p).catch(() => null);
    if (info && now - info.mtimeMs > STALE_MS) {
      await rm(p, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

type TransferRequest = { type: 'transfer_read'; transfer: string; offset: number; length: number } | { type: 'transfer_write'; transfer: string; offset: number; data: Buffer } | { type: 'transfer_close'; transfer: string };
type TransferReply = Extract<AgentMessage, { type: 'transfer_data' | 'transfer_written' }>;

/**
 * Answer one transfer frame: the bytes read as a binary frame (binary-frame.ts), anything else as
 * a text message, null for `transfer_close` (no answer). Failures become the answer's `error`.
 */
export async function answerTransfer(dataDir: string, msg: TransferRequest): Promise<TransferReply | Buffer | null> {
  const error = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000);
  switch (msg.type) {
    case 'transfer_read':
      try {
        return encodeBinaryFrame({ type: 'transfer_data', transfer: msg.transfer, offset: msg.offset }, await readChunk(dataDir, msg.transfer, msg.offset, msg.length));
      } catch (err) {
        return { type: 'transfer_data', transfer: msg.transfer, offset: msg.offset, error: error(err) };
      }
    case 'transfer_write':
      try {
        await writeChunk(dataDir, msg.transfer, msg.offset, msg.data);
        return { type: 'transfer_written', transfer: msg.transfer, offset: msg.offset };
      } catch (err) {
        return { type: 'transfer_written', transfer: msg.transfer, offset: msg.offset, error: error(err) };
      }
    case 'transfer_close':
      await closeTransfer(dataDir, msg.transfer).catch(() => {});
      return null;
  }
}
