import { describe, expect, it } from 'vitest';
import { mergePodLogs, type PodLogLine } from './merge-pod-logs.js';

const texts = (lines: PodLogLine[]) => lines.map((l) => l.text);

describe('mergePodLogs', () => {
  it('interleaves pods by time, strips the timestamps, prefixes the pod and keeps the last n', () => {
    const a = { prefix: 'web-1', text: '2024-05-01T10:00:00.1Z a1\n2024-05-01T10:00:02Z a2\n' };
    const b = { prefix: 'web-2', text: '2024-05-01T10:00:00.05Z b1\n2024-05-01T10:00:00.5Z b2\n2024-05-01T10:00:03.000000001Z b3\n' };
    expect(texts(mergePodLogs([a, b], 10))).toEqual(['[web-2] b1', '[web-1] a1', '[web-2] b2', '[web-1] a2', '[web-2] b3']);
    expect(texts(mergePodLogs([a, b], 2))).toEqual(['[web-1] a2', '[web-2] b3']);
    expect(texts(mergePodLogs([a, b], 0))).toEqual([]);
  });

  it('compares RFC3339Nano stamps by value, not text (trailing zeros are trimmed), and honours offsets', () => {
    const a = { prefix: 'p', text: '2024-05-01T10:00:00.5Z later\n' };
    const b = { prefix: 'q', text: '2024-05-01T10:00:00.49Z earlier\n' };
    const c = { prefix: 'r', text: '2024-05-01T11:59:59+02:00 earliest, 09:59:59Z\n' };
    expect(texts(mergePodLogs([a, b, c], 5))).toEqual(['[r] earliest, 09:59:59Z', '[q] earlier', '[p] later']);
  });

  it('keeps a line without a timestamp after the line before it, and keeps empty payloads', () => {
    expect(texts(mergePodLogs([{ prefix: 'p', text: '2024-05-01T10:00:00Z first\ncontinued\n2024-05-01T10:00:01Z \n' }], 5))).toEqual(['[p] first', '[p] continued', '[p] ']);
  });
});

describe('mergePodLogs times', () => {
  it("keeps each line's kubelet time (ms), and gives a line without one the time of the line before it", () => {
    const lines = mergePodLogs([{ prefix: 'p', text: 'no stamp yet\n2024-05-01T10:00:00.123456789Z first\ncontinued\n2024-05-01T12:00:01+02:00 second\n' }], 10);
    expect(lines.map((l) => l.at)).toEqual([null, '2024-05-01T10:00:00.123Z', '2024-05-01T10:00:00.123Z', '2024-05-01T10:00:01.000Z']);
  });
});
