import { niceMax, type Point } from '../charts/series.ts';
import { utcTimeOfDay } from '../time.ts';

const WIDTH = 480;
const HEIGHT = 140;
const PAD = { left: 40, right: 8, top: 8, bottom: 20 };

/**
 * A small SVG chart, line or bars: enough to see a trend, no chart library. It carries its
 * figures as text too (aria-label and a title), for screen readers and for tests.
 */
export function Chart({ title, points, kind = 'line', unit = '' }: { title: string; points: Point[]; kind?: 'line' | 'bars'; unit?: string }) {
  const max = niceMax(Math.max(0, ...points.map((p) => p.value)));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length <= 1 ? innerW : (i * innerW) / (points.length - (kind === 'bars' ? 0 : 1)));
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const last = points.at(-1);
  const summary = last ? `${title}: latest ${last.value.toFixed(kind === 'bars' ? 0 : 1)}${unit}, scale 0 to ${max}${unit}` : `${title}: no data yet`;
  const barW = points.length > 0 ? Math.max(1, innerW / points.length - 2) : 0;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary}>
        <title>{summary}</title>
        <line class="axis" x1={PAD.left} y1={PAD.top + innerH} x2={WIDTH - PAD.right} y2={PAD.top + innerH} />
        <line class="axis" x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={PAD.top + innerH} />
        <text class="tick" x={PAD.left - 4} y={PAD.top + 8} text-anchor="end">{max}</text>
        <text class="tick" x={PAD.left - 4} y={PAD.top + innerH} text-anchor="end">0</text>
        {points.length > 0 && <text class="tick" x={PAD.left} y={HEIGHT - 4}>{utcTimeOfDay(points[0]!.at)}</text>}
        {last && <text class="tick" x={WIDTH - PAD.right} y={HEIGHT - 4} text-anchor="end">{utcTimeOfDay(last.at)}</text>}
        {kind === 'line' && points.length > 1 && (
          <polyline class="series" points={points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ')} />
        )}
        {kind === 'bars' && points.map((p, i) => (
          <rect key={p.at} class="bar" x={x(i) + 1} y={y(p.value)} width={barW} height={PAD.top + innerH - y(p.value)} />
        ))}
      </svg>
    </figure>
  );
}
