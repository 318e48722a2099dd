/**
 * A line chart of one series as SVG (no chart library): each sample is a point, joined by a line,
 * scaled to the window's range, with the latest value and the maximum as text. Readable at any
 * width: the SVG scales with its box.
 */
export interface ChartPoint {
  readonly t: number;
  readonly v: number;
}

const W = 300;
const H = 90;
const PAD = 4;

export function LineChart({ title, points, format, testid, max }: { title: string; points: readonly ChartPoint[]; format: (v: number) => string; testid: string; max?: number | null }) {
  const last = points[points.length - 1];
  const top = Math.max(max ?? 0, ...points.map((p) => p.v), 1e-9);
  const t0 = points[0]?.t ?? 0;
  const t1 = last?.t ?? 1;
  const x = (t: number) => PAD + ((t - t0) / Math.max(1, t1 - t0)) * (W - 2 * PAD);
  const y = (v: number) => H - PAD - (v / top) * (H - 2 * PAD);
  const line = points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
  return (
    <figure class="chart" data-testid={testid} data-points={points.length}>
      <figcaption>
        <span>{title}</span>
        <span class="chart-now">{last ? format(last.v) : '—'}</span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={`${title}: ${points.length} samples`}>
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} class="axis" />
        {points.length > 1 ? <polyline points={line} class="series" /> : null}
        {points.map((p) => (
          <circle key={p.t} cx={x(p.t)} cy={y(p.v)} r={1.6} class="point" />
        ))}
      </svg>
      <div class="chart-scale">
        <span>max {format(top)}</span>
        <span>{points.length} samples</span>
      </div>
    </figure>
  );
}
