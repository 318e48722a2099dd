import { describe, expect, it } from 'vitest';
import { decodeBinaryFrame, encodeBinaryFrame, frameBuffer } from './binary-frame.js';

/** The binary frames transfers use: header and bytes come back exactly; malformed frames are null. */
describe('binary frames', () => {
  it('round-trips a header and a payload, an empty payload included', () => {
    const payload = Buffer.from([0, 1, 2, 255, 10, 13]);
    const frame = encodeBinaryFrame({ type: 'transfer_data', transfer: 'tr_0011aabb', offset: 7 }, payload);
    expect(frame.readUInt32BE(0)).toBe(JSON.stringify({ type: 'transfer_data', transfer: 'tr_0011aabb', offset: 7 }).length);
    const decoded = decodeBinaryFrame(frame)!;
    expect(decoded.header).toEqual({ type: 'transfer_data', transfer: 'tr_0011aabb', offset: 7 });
    expect(decoded.payload.equals(payload)).toBe(true);
    expect(decodeBinaryFrame(encodeBinaryFrame({ a: 1 }, Buffer.alloc(0)))).toEqual({ header: { a: 1 }, payload: Buffer.alloc(0) });
  });

  it('refuses frames too short, with a header longer than the frame or than 4096 bytes, or not JSON', () => {
    const withLength = (n: number, rest: string) => Buffer.concat([Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]), Buffer.from(rest)]);
    expect(decodeBinaryFrame(Buffer.from([0, 0, 1]))).toBeNull();
    expect(decodeBinaryFrame(withLength(10, '{"a":1}'))).toBeNull();
    expect(decodeBinaryFrame(withLength(5000, 'x'.repeat(6000)))).toBeNull();
    expect(decodeBinaryFrame(withLength(3, '{a:xyz'))).toBeNull();
  });

  it('joins a fragmented message', () => {
    expect(frameBuffer([Buffer.from('ab'), Buffer.from('c')]).toString()).toBe('abc');
    expect(frameBuffer(new Uint8Array([104, 105]).buffer).toString()).toBe('hi');
  });
});
