// The trend sparkline (docs/dashboard.md "Job table"): one bar per recent run, oldest left,
// height = duration relative to the longest, colour = outcome. Rebuilt only when the runs change.
import type { RunOutcome } from '../../model/api-types.js';
import { svg } from '../dom.js';

export interface SparkRun {
  readonly outcome: RunOutcome;
  readonly duration: number | null;
}

const WIDTH = 80;
const HEIGHT = 18;
const SLOTS = 20;

/** A stable key of the runs, to skip rebuilding an unchanged sparkline. */
export function sparkKey(runs: readonly SparkRun[]): string {
  return runs.map((run) => `${run.outcome[0]}${run.duration ?? ''}`).join(',');
}

/**
 * The chart: one `<path>` per outcome holding all its bars (at most four elements, not one per
 * run: the table shows this in every row, and each SVG element costs style and layout). The bar
 * count is in `data-runs`.
 */
export function renderSparkline(runs: readonly SparkRun[], label: string): SVGSVGElement {
  const shown = runs.slice(-SLOTS);
  const chart = svg('svg', {
    class: 'spark',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    width: WIDTH,
    height: HEIGHT,
    role: 'img',
    'aria-label': label,
    'data-runs': shown.length,
  });
  const longest = Math.max(0, ...shown.map((run) => run.duration ?? 0));
  const slot = WIDTH / SLOTS;
  const width = (slot - 1).toFixed(1);
  const offset = (SLOTS - shown.length) * slot;
  const bars = new Map<RunOutcome, string[]>();
  shown.forEach((run, index) => {
    const share = longest > 0 && run.duration !== null ? run.duration / longest : 0;
    const height = Math.max(3, Math.round(share * HEIGHT));
    const x = (offset + index * slot + 0.5).toFixed(1);
    let outcome = bars.get(run.outcome);
    if (outcome === undefined) bars.set(run.outcome, (outcome = []));
    outcome.push(`M${x} ${HEIGHT - height}h${width}v${height}h-${width}z`);
  });
  for (const [outcome, paths] of bars) {
    chart.append(svg('path', { class: `spark-${outcome}`, d: paths.join('') }));
  }
  return chart;
}

/** `12 runs: 10 ok, 2 failed`. */
export function sparkSummary(runs: readonly SparkRun[]): string {
  if (runs.length === 0) return 'No runs yet';
  let ok = 0;
  let failed = 0;
  for (const run of runs) {
    if (run.outcome === 'success') ok += 1;
    else if (run.outcome === 'failure') failed += 1;
  }
  const other = runs.length - ok - failed;
  return `${runs.length} recent run${runs.length === 1 ? '' : 's'}: ${ok} ok, ${failed} failed${other > 0 ? `, ${other} other` : ''}`;
}
