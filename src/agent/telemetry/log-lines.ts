/**
 * Splits the bytes appended to a log file into lines, remembering where each line starts in the
 * file (its `offset`, the line's identity). Fed chunks in file order; a line not yet ended by a
 * newline waits for the next chunk. Bounded: a line longer than `maxChars` bytes is cut and ended
 * with `…`, and the rest of it, up to its newline, is dropped. Pure.
 */
import { LOG_LINE_MAX_CHARS } from '../../contracts/telemetry.js';

export interface SplitLine {
  readonly offset: number;
  readonly text: string;
}

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingOffset = 0;
  /** Inside an over-long line already emitted (cut): drop bytes until its newline. */
  private dropping: boolean;

  /** `skipFirstPartial`: the first chunk starts mid-line (reading began inside the file); drop up to the first newline. */
  constructor(private readonly maxChars = LOG_LINE_MAX_CHARS, skipFirstPartial = false) {
    this.dropping = skipFirstPartial;
  }

  /** Feed `chunk`, which starts at byte `offset` of the file; returns the lines it completed. */
  push(chunk: Buffer, offset: number): SplitLine[] {
    const out: SplitLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (this.dropping) {
        if (nl === -1) return out;
        this.dropping = false;
        start = nl + 1;
        continue;
      }
      if (this.pendingBytes === 0) this.pendingOffset = offset + start;
      const room = this.maxChars - this.pendingBytes;
      const piece = chunk.subarray(start, Math.min(end, start + Math.max(0, room)));
      if (piece.length > 0) {
        this.pending.push(piece);
        this.pendingBytes += piece.length;
      }
      const overLong = end - start > room;
      if (nl === -1 && !overLong) return out;
      out.push({ offset: this.pendingOffset, text: this.take(overLong) });
      if (nl === -1) {
        this.dropping = true;
        return out;
      }
      start = nl + 1;
      if (start >= chunk.length) return out;
    }
  }

  /** Forget a partial line (the file was truncated or skipped ahead). */
  reset(skipFirstPartial: boolean): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.dropping = skipFirstPartial;
  }

  private take(cut: boolean): string {
    const text = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    return cut ? `${text}…` : text;
  }
}
