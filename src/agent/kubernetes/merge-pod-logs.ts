/** The log text of one container, read with `timestamps=true`, and the prefix its lines get. */
export interface PodLogChunk {
  readonly prefix: string;
  readonly text: string;
}

/** One merged line: its kubelet timestamp (ISO, null when the line had none and none came before it) and text. */
export interface PodLogLine {
  readonly at: string | null;
  readonly text: string;
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d) ?(.*)$/;

/** Sortable time of an RFC 3339 stamp: [epoch seconds, nanoseconds]. kubelet writes RFC3339Nano, which
 *  trims trailing zeros (`.5Z` after `.49Z`), so the text alone does not sort. */
function timeOf(seconds: string, fraction: string | undefined, zone: string): [number, number] {
  return [Date.parse(`${seconds}${zone}`) / 1000, Number((fraction ?? '').padEnd(9, '0'))];
}

/**
 * The last `n` lines of several containers' logs, interleaved by their timestamps, which are then
 * cut off and replaced by `[prefix] `; pure. A line without a timestamp keeps its place after the
 * line before it in its own log. Ties keep the chunks' order.
 */
export function mergePodLogs(chunks: readonly PodLogChunk[], n: number): PodLogLine[] {
  const lines: { t: [number, number]; at: string | null; seq: number; text: string }[] = [];
  for (const c of chunks) {
    let t: [number, number] = [-Infinity, 0];
    let at: string | null = null;
    for (const raw of c.text.split('\n')) {
      if (raw === '' || raw === '\r') continue;
      const m = STAMP.exec(raw.replace(/\r$/, ''));
      if (m) {
        t = timeOf(m[1]!, m[2], m[3]!);
        // Milliseconds are what a log line's `at` holds; the nanoseconds still order the merge.
        at = new Date(t[0] * 1000 + Math.floor(t[1] / 1e6)).toISOString();
      }
      lines.push({ t, at, seq: lines.length, text: `[${c.prefix}] ${m ? m[4]! : raw}` });
    }
  }
  lines.sort((a, b) => a.t[0] - b.t[0] || a.t[1] - b.t[1] || a.seq - b.seq);
  return n <= 0 ? [] : lines.slice(-n).map((l) => ({ at: l.at, text: l.text }));
}
