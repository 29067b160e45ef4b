// The drawer's History tab (docs/dashboard.md "Job drawer"): the stats of `GET /jobs/{n}/runs`,
// one bar per run (height = duration, colour = outcome, newest right) and the run table, newest
// first. Re-read whenever the job list shows a newer finished run.
import type { JobRuns, RunRecord } from '../../model/api-types.js';
import { formatBytes, formatDuration, formatUtc, parseIso } from '../../model/format.js';
import { STATUS_META, outcomeStatus } from '../../model/job-status.js';
import { jobPath } from '../api.js';
import { AsyncView } from '../async-view.js';
import { h, svg } from '../dom.js';
import type { DrawerTab, DrawerTabInstance } from './tab.js';

export const historyTab: DrawerTab = {
  id: 'history',
  label: 'History',
  available: () => Promise.resolve(true),
  mount(host, ctx, job): DrawerTabInstance {
    const view = new AsyncView('history');
    host.append(view.element);
    let shown: string | null | undefined;
    return {
      onRow(row) {
        const finished = row?.job.last_run?.finished_at ?? null;
        if (finished === shown) return;
        shown = finished;
        view.load(async () => renderHistory(await ctx.api.json<JobRuns>(jobPath(job, 'runs'))));
      },
      dispose: () => view.dispose(),
    };
  },
};

function stat(label: string, value: string): HTMLElement {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value));
}

export function renderHistory(data: JobRuns): Element[] {
  const { stats, runs } = data;
  if (runs.length === 0) return [h('p', { class: 'muted' }, 'No runs recorded yet.')];
  const grid = h(
    'dl',
    { class: 'stats' },
    stat('Runs', String(stats.total)),
    stat(
      'Success rate',
      stats.success_rate === null ? '—' : `${Math.round(stats.success_rate * 1000) / 10}%`,
    ),
    stat('OK / failed', `${stats.success} / ${stats.failure}`),
    stat('Cancelled', String(stats.cancelled)),
    stat('Avg duration', formatDuration(stats.avg_duration)),
    stat(
      'Min / max',
      `${formatDuration(stats.min_duration)} / ${formatDuration(stats.max_duration)}`,
    ),
  );
  if (stats.avg_cpu_seconds !== null)
    grid.append(stat('Avg CPU', `${stats.avg_cpu_seconds.toFixed(2)} s`));
  if (stats.max_rss_bytes !== null) grid.append(stat('Peak RSS', formatBytes(stats.max_rss_bytes)));
  return [grid, durationBars(runs), runTable(runs)];
}

function durationBars(runs: readonly RunRecord[]): SVGSVGElement {
  const width = 600;
  const height = 80;
  const longest = Math.max(0, ...runs.map((run) => run.duration ?? 0));
  const slot = width / Math.max(runs.length, 20);
  const chart = svg('svg', {
    class: 'bars',
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `Durations of the last ${runs.length} runs, newest on the right; longest ${formatDuration(longest)}`,
  });
  runs.forEach((run, index) => {
    const share = longest > 0 && run.duration !== null ? run.duration / longest : 0;
    const barHeight = Math.max(2, share * (height - 2));
    const x = width - (runs.length - index) * slot;
    chart.append(
      svg(
        'rect',
        {
          class: `spark-${run.outcome}`,
          x: (x + 1).toFixed(1),
          y: (height - barHeight).toFixed(1),
          width: Math.max(1, slot - 2).toFixed(1),
          height: barHeight.toFixed(1),
        },
        svg('title', {}, `${run.outcome} · ${formatDuration(run.duration)} · ${run.finished_at}`),
      ),
    );
  });
  return chart;
}

function runTable(runs: readonly RunRecord[]): HTMLElement {
  const rows = [...runs].reverse().map((run) => {
    const status = outcomeStatus(run.outcome);
    const finished = parseIso(run.finished_at);
    return h(
      'tr',
      {},
      h(
        'td',
        {},
        h(
          'span',
          { class: `status status-${status}` },
          h('span', { class: 'glyph', 'aria-hidden': 'true' }, STATUS_META[status].glyph),
          h('span', {}, run.outcome),
        ),
      ),
      h('td', { class: 'num' }, run.exit_code === null ? '—' : String(run.exit_code)),
      h('td', {}, finished === null ? run.finished_at : formatUtc(finished)),
      h('td', { class: 'num' }, formatDuration(run.duration)),
      h('td', { class: 'reason' }, run.fail_reason ?? ''),
      h(
        'td',
        { class: 'num' },
        run.resources === null
          ? '—'
          : `${run.resources.cpu_total_seconds.toFixed(2)} s · ${formatBytes(run.resources.max_rss_bytes)}`,
      ),
    );
  });
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'runs' },
      h('caption', { class: 'visually-hidden' }, 'Runs, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Outcome', 'Exit', 'Finished', 'Duration', 'Reason', 'CPU / RSS'].map((label) =>
            h('th', { scope: 'col' }, label),
          ),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
  );
}
