/**
 * A running program's output as lines for the control plane (a build's, shown live in the
 * deployment): chunks are split into lines (`\n`, and `\r` for progress bars), each cut to
 * OUTPUT_LINE_MAX characters, and sent in batches at most every `everyMs` and at most
 * OUTPUT_LINES_MAX lines a message, so a chatty build costs a few messages a second. `end()` sends
 * what is left (a last line without a newline too).
 */
import { StringDecoder } from 'node:string_decoder';
import { OUTPUT_LINE_MAX, OUTPUT_LINES_MAX } from '../../contracts/protocol.js';

export interface LineSink {
  write(chunk: Buffer): void;
  end(): void;
}

export function outputLines(send: (lines: readonly string[]) => void, o: { readonly everyMs?: number } = {}): LineSink {
  const everyMs = o.everyMs ?? 250;
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let pending: string[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    while (pending.length > 0) send(pending.splice(0, OUTPUT_LINES_MAX));
  };
  const add = (text: string) => {
    const parts = (partial + text).split(/\r\n|\n|\r/);
    partial = parts.pop()!;
    for (const line of parts) pending.push(line.slice(0, OUTPUT_LINE_MAX));
    if (pending.length >= OUTPUT_LINES_MAX) flush();
    else if (pending.length > 0 && !timer) timer = setTimeout(flush, everyMs);
  };
  return {
    write: (chunk) => add(decoder.write(chunk)),
    end() {
      add(decoder.end());
      if (partial !== '') pending.push(partial.slice(0, OUTPUT_LINE_MAX));
      partial = '';
      flush();
      pending = [];
    },
  };
}
