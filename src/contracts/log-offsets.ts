/**
 * Offsets for log lines read from a source that has none of its own (pod logs, CloudWatch): the
 * store keeps a line once per (env, version, service, offset), and a line read again by the next
 * request must get the same offset. A line's offset is derived from its text and how many equal
 * lines came before it in the batch (48 bits of a SHA-256: safe as a JSON number and a bigint).
 */
import { createHash } from 'node:crypto';

export function contentOffsets(texts: readonly string[]): number[] {
  const seen = new Map<string, number>();
  return texts.map((text) => {
    const n = seen.get(text) ?? 0;
    seen.set(text, n + 1);
    return parseInt(createHash('sha256').update(`${n}\n${text}`).digest('hex').slice(0, 12), 16);
  });
}
