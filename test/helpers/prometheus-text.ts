/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every line
 * is a `# HELP`, a `# TYPE`, or a sample `name{label="value",…} value`; anything else throws with
 * the line. Returns the samples and each metric family's type.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(\\{(.*)\\})?\\s+(\\S+)(\\s+-?\\d+)?$`);
const LABEL = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/;

export function parsePrometheusText(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const m = new RegExp(`^# (HELP|TYPE) (${NAME})( .*)?$`).exec(line);
      if (!m) throw new Error(`bad comment line: ${line}`);
      if (m[1] === 'TYPE') {
        const type = (m[3] ?? '').trim();
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type)) throw new Error(`bad type: ${line}`);
        types.set(m[2]!, type);
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const labels: Record<string, string> = {};
    let rest = m[3] ?? '';
    while (rest.trim() !== '') {
      const l = LABEL.exec(rest);
      if (!l) throw new Error(`bad labels in: ${line}`);
      labels[l[1]!] = l[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
      rest = rest.slice(l[0].length);
    }
    const raw = m[4]!;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
    if (Number.isNaN(value) && raw !== 'NaN') throw new Error(`bad value in: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { samples, types };
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}
