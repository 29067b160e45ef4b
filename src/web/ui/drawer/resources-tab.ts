// The drawer's Resources tab (docs/dashboard.md "Job drawer"): CPU % and RSS of the live run
// and of recent monitored runs, from `GET /jobs/{n}/resources`. The tab only shows when the
// daemon serves that route (it answers 404 on daemons without resource sampling).
import type { JobResourcesWire } from '../../model/api-types.js';
import { formatBytes, formatPercent, formatUtc, parseIso } from '../../model/format.js';
import { jobPath } from '../api.js';
import { lineChart } from '../chart.js';
import { AsyncView } from '../async-view.js';
import { h } from '../dom.js';
import type { DrawerTab, DrawerTabInstance } from './tab.js';

export const resourcesTab: DrawerTab = {
  id: 'resources',
  label: 'Resources',
  async available(ctx, job) {
    try {
      return (
        (await ctx.api.optionalJson<JobResourcesWire>(jobPath(job, 'resources?runs=0'))) !== null
      );
    } catch {
      return false;
    }
  },
  mount(host, ctx, job): DrawerTabInstance {
    const view = new AsyncView('resources');
    host.append(view.element);
    let shown = '';
    return {
      onRow(row) {
        // Live runs change every poll; finished ones only when a run ends.
        const key = row?.job.running
          ? `live:${ctx.clock.now()}`
          : `done:${row?.job.last_run?.finished_at ?? ''}`;
        if (key === shown) return;
        shown = key;
        view.load(async () =>
          renderResources(await ctx.api.json<JobResourcesWire>(jobPath(job, 'resources'))),
        );
      },
      dispose: () => view.dispose(),
    };
  },
};

export function renderResources(data: JobResourcesWire): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (!data.monitored)
    parts.push(
      h(
        'p',
        { class: 'muted' },
        'This job is not monitored: set monitorResources to sample its CPU and memory.',
      ),
    );
  for (const live of data.live) {
    const points = live.series;
    parts.push(
      h(
        'h3',
        {},
        `Live run (pid ${live.pid}): CPU ${formatPercent(live.current?.cpu_percent)} · RSS ${formatBytes(live.current?.rss_bytes)}`,
      ),
      chartPair(points, `live run`),
    );
  }
  const runs = data.runs.filter(
    (run) => run.resources.series !== undefined && run.resources.series.length > 0,
  );
  for (const run of [...runs].reverse().slice(0, 5)) {
    const finished = parseIso(run.finished_at);
    parts.push(
      h(
        'h3',
        {},
        `Run finished ${finished === null ? run.finished_at : formatUtc(finished)} (${run.outcome}): CPU ${run.resources.cpu_total_seconds.toFixed(2)} s · peak RSS ${formatBytes(run.resources.max_rss_bytes)}`,
      ),
      chartPair(run.resources.series!, `run finished ${run.finished_at}`),
    );
  }
  if (parts.length === 0 || (data.live.length === 0 && runs.length === 0))
    parts.push(h('p', { class: 'muted' }, 'No samples yet.'));
  return parts;
}

function chartPair(
  points: readonly (readonly [number, number, number])[],
  what: string,
): HTMLElement {
  const cpuMax = Math.max(100, ...points.map((p) => p[1]));
  const rssMax = Math.max(1, ...points.map((p) => p[2]));
  return h(
    'div',
    { class: 'chart-pair' },
    h(
      'figure',
      {},
      lineChart([{ points: points.map((p) => [p[0], p[1]] as const), className: 'line-cpu' }], {
        yMax: cpuMax,
        label: `CPU percent of the ${what}`,
      }),
      h('figcaption', {}, `CPU % (max ${formatPercent(cpuMax)})`),
    ),
    h(
      'figure',
      {},
      lineChart([{ points: points.map((p) => [p[0], p[2]] as const), className: 'line-mem' }], {
        yMax: rssMax,
        label: `RSS of the ${what}`,
      }),
      h('figcaption', {}, `RSS (max ${formatBytes(rssMax)})`),
    ),
  );
}
