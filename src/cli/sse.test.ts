import { describe, expect, it } from 'vitest';
import { SseParser, type SseMessage } from './sse.js';

function parseAll(chunks: readonly string[]): SseMessage[] {
  const parser = new SseParser();
  return chunks.flatMap((c) => parser.push(c));
}

describe('SseParser', () => {
  it('parses named events with JSON data', () => {
    const out = parseAll(['event: deployment\ndata: {"id":"dep_1"}\n\nevent: end\ndata: {}\n\n']);
    expect(out).toEqual([
      { event: 'deployment', data: '{"id":"dep_1"}', id: null },
      { event: 'end', data: '{}', id: null },
    ]);
  });

  it('joins multi-line data and defaults the event name to message', () => {
    expect(parseAll(['data: a\ndata: b\n\n'])).toEqual([{ event: 'message', data: 'a\nb', id: null }]);
  });

  it('reassembles events split across chunks at any point', () => {
    const text = 'event: deployment\ndata: {"x":1}\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      expect(parseAll([text.slice(0, cut), text.slice(cut)])).toEqual([{ event: 'deployment', data: '{"x":1}', id: null }]);
    }
  });

  it('accepts CRLF and CR line endings, including CRLF split between chunks', () => {
    expect(parseAll(['event: a\r\ndata: 1\r\n\r\n'])).toEqual([{ event: 'a', data: '1', id: null }]);
    expect(parseAll(['event: a\rdata: 1\r\r'])).toEqual([{ event: 'a', data: '1', id: null }]);
    expect(parseAll(['event: a\r', '\ndata: 1\r', '\n\r', '\n'])).toEqual([{ event: 'a', data: '1', id: null }]);
  });

  it('ignores comments and unknown fields, strips one leading space only', () => {
    expect(parseAll([': keep-alive\n\nfoo: bar\ndata:  two spaces\ndata:none\n\n'])).toEqual([
      { event: 'message', data: ' two spaces\nnone', id: null },
    ]);
  });

  it('keeps the last id across events and reads retry', () => {
    const parser = new SseParser();
    const out = parser.push('id: 7\ndata: a\n\ndata: b\n\nretry: 1500\n\n');
    expect(out.map((m) => m.id)).toEqual(['7', '7']);
    expect(parser.retryMs).toBe(1500);
  });

  it('dispatches a named event without data, but not an empty one', () => {
    expect(parseAll(['\n\nevent: end\n\n'])).toEqual([{ event: 'end', data: '', id: null }]);
  });

  it('strips a leading byte-order mark', () => {
    expect(parseAll(['\uFEFFdata: x\n\n'])).toEqual([{ event: 'message', data: 'x', id: null }]);
  });

  it('discards an unterminated event at end of stream', () => {
    const parser = new SseParser();
    expect(parser.push('event: deployment\ndata: {"partial"')).toEqual([]);
    parser.end();
    expect(parser.push('\n\n')).toEqual([]);
  });
});
