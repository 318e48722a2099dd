/**
 * Follows one service's log file (`<dataDir>/logs/<env>/<version>/<service>.log`, where the
 * process runtime sends its stdout and stderr) by polling its size. A new tailer starts at most
 * `TAIL_START_BYTES` before the end, so an agent restarted beside a long-running service picks
 * up its recent lines rather than its whole history. Each poll reads at most `MAX_READ_BYTES`: a
 * service that printed more since the last poll loses the middle (the newest lines are kept).
 */
import { open } from 'node:fs/promises';
import { LineSplitter, type SplitLine } from './log-lines.js';

export const TAIL_START_BYTES = 64 * 1024;
const MAX_READ_BYTES = 256 * 1024;

export class LogTailer {
  private offset: number | null = null;
  private readonly splitter = new LineSplitter();

  constructor(readonly file: string) {}

  /** The lines completed since the last poll (the first poll: those of the file's last 64 KiB). A missing file gives []. */
  async poll(): Promise<SplitLine[]> {
    let handle;
    try {
      handle = await open(this.file, 'r');
    } catch {
      return [];
    }
    try {
      const { size } = await handle.stat();
      if (this.offset === null || size < this.offset) {
        // First look, or the file was replaced/truncated: start near its end.
        this.offset = Math.max(0, size - TAIL_START_BYTES);
        this.splitter.reset(this.offset > 0);
      }
      if (size - this.offset > MAX_READ_BYTES) {
        this.offset = size - MAX_READ_BYTES;
        this.splitter.reset(true);
      }
      if (size === this.offset) return [];
      const buf = Buffer.alloc(size - this.offset);
      const { bytesRead } = await handle.read(buf, 0, buf.length, this.offset);
      const start = this.offset;
      this.offset += bytesRead;
      return this.splitter.push(buf.subarray(0, bytesRead), start);
    } finally {
      await handle.close();
    }
  }
}
