/**
 * A program's output as batched lines (command-output.ts): split on \n, \r\n and \r, a line cut
 * at OUTPUT_LINE_MAX, at most OUTPUT_LINES_MAX lines a batch, a multi-byte character split across
 * chunks kept whole, and what is left sent by end().
 */
import { describe, expect, it } from 'vitest';
import { OUTPUT_LINE_MAX, OUTPUT_LINES_MAX } from '../../contracts/protocol.js';
import { outputLines } from './command-output.js';

describe('outputLines', () => {
  it('batches whole lines, keeps a partial one for the next chunk, and sends the rest at end()', () => {
    const batches: string[][] = [];
    const sink = outputLines((lines) => batches.push([...lines]), { everyMs: 60_000 });
    sink.write(Buffer.from('Step 1/5 : FROM scratch\r\n ---> \n'));
    sink.write(Buffer.from('progress 10%\rprogress 100%\nhalf of a li'));
    const euro = Buffer.from('ne €');
    sink.write(euro.subarray(0, euro.length - 1)); // the € cut in the middle
    sink.write(euro.subarray(euro.length - 1));
    expect(batches).toEqual([]); // nothing before the batch interval or end()
    sink.end();
    expect(batches).toEqual([['Step 1/5 : FROM scratch', ' ---> ', 'progress 10%', 'progress 100%', 'half of a line €']]);
  });

  it('sends at once when a batch is full (in messages of at most OUTPUT_LINES_MAX lines), and cuts an overlong line', () => {
    const batches: string[][] = [];
    const sink = outputLines((lines) => batches.push([...lines]), { everyMs: 60_000 });
    sink.write(Buffer.from(`${'x'.repeat(OUTPUT_LINE_MAX + 10)}\n${'line\n'.repeat(OUTPUT_LINES_MAX)}`));
    expect(batches.map((b) => b.length)).toEqual([OUTPUT_LINES_MAX, 1]);
    expect(batches[0]![0]).toHaveLength(OUTPUT_LINE_MAX);
    sink.end();
    expect(batches.map((b) => b.length)).toEqual([OUTPUT_LINES_MAX, 1]);
  });

  it('sends what came within the interval as one batch, once the interval has passed', async () => {
    const batches: string[][] = [];
    const sent = new Promise<void>((resolve) => {
      const sink = outputLines((lines) => (batches.push([...lines]), resolve()), { everyMs: 20 });
      sink.write(Buffer.from('a\n'));
      sink.write(Buffer.from('b\n'));
    });
    await sent;
    expect(batches).toEqual([['a', 'b']]);
  });
});
