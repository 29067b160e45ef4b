// A small SVG line chart (resource series, node history): one or more series over a shared time
// axis, a fixed y range, the latest value in the accessible label. No axes library.
import { svg } from './dom.js';

export interface ChartSeries {
  /** [x (epoch seconds), y] pairs, oldest first. */
  readonly points: readonly (readonly [number, number])[];
  /** CSS class giving the stroke colour. */
  readonly className: string;
}

export function lineChart(
  series: readonly ChartSeries[],
  options: { readonly yMax: number; readonly label: string },
): SVGSVGElement {
  const width = 600;
  const height = 120;
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const minX = Math.min(...xs);
  const maxX = Math.max(...xs);
  const spanX = maxX - minX || 1;
  const yMax = options.yMax > 0 ? options.yMax : 1;
  const chart = svg('svg', {
    class: 'chart',
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': options.label,
  });
  for (const fraction of [0.25, 0.5, 0.75]) {
    chart.append(
      svg('line', {
        class: 'chart-grid',
        x1: 0,
        x2: width,
        y1: height * fraction,
        y2: height * fraction,
      }),
    );
  }
  for (const s of series) {
    if (s.points.length === 0) continue;
    const d = s.points
      .map(([x, y], index) => {
        const px = ((x - minX) / spanX) * width;
        const py = height - Math.max(0, Math.min(1, y / yMax)) * (height - 4) - 2;
        return `${index === 0 ? 'M' : 'L'}${px.toFixed(1)} ${py.toFixed(1)}`;
      })
      .join(' ');
    chart.append(
      svg('path', {
        class: `chart-line ${s.className}`,
        d,
        fill: 'none',
        'vector-effect': 'non-scaling-stroke',
      }),
    );
  }
  return chart;
}
