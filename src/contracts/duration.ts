/** Compose durations: `1m30s`, `500ms`, `10s`, or a bare number of seconds. Returns milliseconds. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const unitMs: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  let total = 0;
  let rest = text;
  while (rest.length > 0) {
    const match = /^(\d+(?:\.\d+)?)(h|ms|m|s|us)/.exec(rest);
    if (!match) return null;
    total += Number(match[1]) * unitMs[match[2]!]!;
    rest = rest.slice(match[0].length);
  }
  return text.length > 0 ? Math.round(total) : null;
}
