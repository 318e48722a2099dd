/**
 * A transfer's files on an agent: chunks written at their own offsets (in any order, twice or
 * not) build the exact archive; reads past its end are short; the frames are answered with data
 * or an `error` field, never a throw; `transfer_close` removes the files; ids that are not
 * transfer ids are refused; the sweep removes only what is over a day old; digestFile is the
 * size and sha256 of the bytes.
 */
import { decodeBinaryFrame } from '../../contracts/binary-frame.js';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerTransfer, digestFile, readChunk, sweepTransfers, transferFile, transfersDir, writeChunk } from './transfer-files.js';

const ID = 'tr_0123abcd';
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'denv-transfer-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const bytes = (n: number, seed = 1) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 13 + seed) & 0xff));

async function writeOut(content: Buffer): Promise<void> {
  await mkdir(transfersDir(dataDir), { recursive: true });
  await writeFile(transferFile(dataDir, ID, 'out'), content);
}

describe('transfer files', () => {
  it('builds the archive from chunks written out of order, and a chunk written twice changes nothing', async () => {
    const whole = bytes(25);
    await writeChunk(dataDir, ID, 20, whole.subarray(20));
    await writeChunk(dataDir, ID, 0, whole.subarray(0, 10));
    await writeChunk(dataDir, ID, 10, whole.subarray(10, 20));
    const file = transferFile(dataDir, ID, 'in');
    expect(file).toBe(path.join(dataDir, 'transfers', `${ID}.in`));
    expect((await readFile(file)).equals(whole)).toBe(true);

    await writeChunk(dataDir, ID, 10, whole.subarray(10, 20));
    expect((await readFile(file)).equals(whole)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(transfersDir(dataDir))).mode & 0o777).toBe(0o700);
  });

  it('reads a chunk at its offset, fewer bytes at the end and none past it', async () => {
    const whole = bytes(10);
    await writeOut(whole);
    expect((await readChunk(dataDir, ID, 2, 4)).equals(whole.subarray(2, 6))).toBe(true);
    expect((await readChunk(dataDir, ID, 8, 4)).equals(whole.subarray(8))).toBe(true);
    expect((await readChunk(dataDir, ID, 10, 4)).length).toBe(0);
    expect((await readChunk(dataDir, ID, 50, 4)).length).toBe(0);
  });

  it('answers transfer_read with a binary frame of the bytes, or an error field when the archive is missing', async () => {
    const whole = bytes(12);
    expect(await answerTransfer(dataDir, { type: 'transfer_read', transfer: ID, offset: 0, length: 4 })).toEqual({
      type: 'transfer_data', transfer: ID, offset: 0, error: expect.stringContaining('ENOENT'),
    });
    await writeOut(whole);
    const frame = await answerTransfer(dataDir, { type: 'transfer_read', transfer: ID, offset: 4, length: 6 });
    expect(Buffer.isBuffer(frame)).toBe(true);
    const decoded = decodeBinaryFrame(frame as Buffer)!;
    expect(decoded.header).toEqual({ type: 'transfer_data', transfer: ID, offset: 4 });
    expect(decoded.payload.equals(whole.subarray(4, 10))).toBe(true);
    const bad = await answerTransfer(dataDir, { type: 'transfer_read', transfer: '../x', offset: 0, length: 4 });
    expect(bad).toEqual({ type: 'transfer_data', transfer: '../x', offset: 0, error: 'transfer: "../x" is not a transfer id' });
  });

  it('answers transfer_write once the chunk is written, and transfer_close removes every file of the transfer', async () => {
    const chunk = bytes(7, 5);
    expect(await answerTransfer(dataDir, { type: 'transfer_write', transfer: ID, offset: 3, data: chunk })).toEqual({
      type: 'transfer_written', transfer: ID, offset: 3,
    });
    expect((await readFile(transferFile(dataDir, ID, 'in'))).equals(Buffer.concat([Buffer.alloc(3), chunk]))).toBe(true);

    await writeOut(bytes(4));
    await writeFile(transferFile(dataDir, ID, 'json'), '{}');
    await writeFile(`${transferFile(dataDir, ID, 'out')}.tmp`, 'half an export');
    const other = transferFile(dataDir, 'tr_ffffffff', 'out');
    await writeFile(other, 'kept');
    expect(await answerTransfer(dataDir, { type: 'transfer_close', transfer: ID })).toBeNull();
    expect(await readdir(transfersDir(dataDir))).toEqual(['tr_ffffffff.out']);
    // Closing again (nothing left) is no error either.
    expect(await answerTransfer(dataDir, { type: 'transfer_close', transfer: ID })).toBeNull();
  });

  it('answers a write that cannot be made with an error field', async () => {
    // The transfers directory is a file: nothing can be created in it.
    await writeFile(transfersDir(dataDir), 'not a directory');
    const reply = await answerTransfer(dataDir, { type: 'transfer_write', transfer: ID, offset: 0, data: Buffer.from([0, 0, 0]) });
    expect(reply).toEqual({ type: 'transfer_written', transfer: ID, offset: 0, error: expect.stringMatching(/EEXIST|ENOTDIR/) });
  });

  it('refuses a name that is not a transfer id', () => {
    for (const id of ['../x', 'tr_XYZ', 'tr_0123abc', 'tr_0123abcd/../../y', '', `tr_${'a'.repeat(65)}`]) {
      expect(() => transferFile(dataDir, id, 'out')).toThrow(`transfer: "${id}" is not a transfer id`);
    }
    expect(transferFile(dataDir, `tr_${'a'.repeat(64)}`, 'json')).toBe(path.join(dataDir, 'transfers', `tr_${'a'.repeat(64)}.json`));
  });

  it('sweeps only files more than a day old, and counts them', async () => {
    expect(await sweepTransfers(dataDir)).toBe(0); // no transfers directory yet
    await mkdir(transfersDir(dataDir), { recursive: true });
    const now = Date.now();
    const aged = async (name: string, ageMs: number) => {
      const p = path.join(transfersDir(dataDir), name);
      await writeFile(p, name);
      const t = new Date(now - ageMs);
      await utimes(p, t, t);
    };
    const hour = 60 * 60_000;
    await aged('tr_00000001.out', 25 * hour);
    await aged('tr_00000001.json', 48 * hour);
    await aged('tr_00000002.in', 23 * hour);
    await aged('tr_00000003.out.tmp', 24 * hour + 60_000);
    await aged('tr_00000004.out', 0);
    expect(await sweepTransfers(dataDir, now)).toBe(3);
    expect((await readdir(transfersDir(dataDir))).sort()).toEqual(['tr_00000002.in', 'tr_00000004.out']);
    expect(await sweepTransfers(dataDir, now)).toBe(0);
  });

  it('digests a file: its size and sha256', async () => {
    const content = Buffer.concat([bytes(200_000, 3), bytes(77_777, 9)]);
    const file = path.join(dataDir, 'archive');
    await writeFile(file, content);
    expect(await digestFile(file)).toEqual({ bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') });
    await writeFile(file, '');
    expect(await digestFile(file)).toEqual({ bytes: 0, sha256: createHash('sha256').digest('hex') });
  });
});
