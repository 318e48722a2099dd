/**
 * Binary WebSocket frames of the agent protocol (contracts/protocol.ts "Transfers"): the chunks of
 * a transfer travel as bytes, not as base64 inside JSON — JSON-encoding and parsing a megabyte
 * string took most of a chunk's time. A frame is
 *
 *   [4 bytes: header length, big-endian][header: JSON, UTF-8][payload: the bytes]
 *
 * and its header is validated like any text frame. Pure.
 */

/** Header lengths above this are refused (a header is a few dozen bytes). */
const MAX_HEADER_BYTES = 4096;

export function encodeBinaryFrame(header: Readonly<Record<string, unknown>>, payload: Buffer): Buffer {
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length, 0);
  return Buffer.concat([length, head, payload]);
}

/** The header (parsed JSON, not yet validated) and the payload; null when the frame is malformed. */
export function decodeBinaryFrame(frame: Buffer): { header: unknown; payload: Buffer } | null {
  if (frame.length < 4) return null;
  const length = frame.readUInt32BE(0);
  if (length > MAX_HEADER_BYTES || 4 + length > frame.length) return null;
  try {
    return { header: JSON.parse(frame.subarray(4, 4 + length).toString('utf8')), payload: frame.subarray(4 + length) };
  } catch {
    return null;
  }
}

/** A WebSocket message as `ws` hands it over, as one Buffer. */
export function frameBuffer(raw: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Array.isArray(raw)) return Buffer.concat(raw);
  return Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
}
