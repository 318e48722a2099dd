/**
 * An incremental parser for server-sent events (the WHATWG "event stream" format), fed decoded
 * text chunks as they arrive from `fetch`. Chunks may split anywhere, including between the CR and
 * LF of a line ending. Pure: no I/O, no timers.
 */

export interface SseMessage {
  /** The `event:` field, or `message` when the event named none. */
  readonly event: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
  /** The last `id:` seen on the stream (it persists across events), or null. */
  readonly id: string | null;
}

export class SseParser {
  private buffer = '';
  private started = false;
  /** The previous chunk ended with CR: a LF opening the next chunk belongs to that line ending. */
  private skipLF = false;
  private eventType = '';
  private data: string[] = [];
  private lastId: string | null = null;
  /** The last valid `retry:` the server sent, in ms. */
  retryMs: number | null = null;

  /** Feed a chunk; returns the messages it completed, in order. */
  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLF && text.startsWith('\n')) text = text.slice(1);
    if (text.length > 0) this.skipLF = false;
    const buffer = this.buffer + text;
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(buffer.slice(start, i), out);
      if (c === '\r') {
        if (i + 1 < buffer.length) {
          if (buffer[i + 1] === '\n') i++;
        } else {
          this.skipLF = true;
        }
      }
      start = i + 1;
    }
    this.buffer = buffer.slice(start);
    return out;
  }

  /** End of stream. An event not closed by a blank line is discarded, as the standard says. */
  end(): void {
    this.buffer = '';
    this.data = [];
    this.eventType = '';
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      this.dispatch(out);
      return;
    }
    if (line.startsWith(':')) return; // comment (servers send these as keep-alives)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  private dispatch(out: SseMessage[]): void {
    const type = this.eventType;
    const data = this.data;
    this.eventType = '';
    this.data = [];
    // The standard drops an event with no data line; we also keep one that names its type, so a
    // bare `event: end` still ends the watch (a browser EventSource would not see it).
    if (data.length === 0 && type === '') return;
    out.push({ event: type || 'message', data: data.join('\n'), id: this.lastId });
  }
}
