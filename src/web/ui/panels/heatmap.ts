// The activity heatmap (docs/dashboard.md "Panels"): one row per job (the table's
// current order and filter, at most 200), 24 buckets across 6 h / 24 h / 7 d; colour = worst
// outcome, shade = volume; hover for the tally, click to open the job. Run lists come from
// `GET /jobs/{n}/runs`, four requests at a time, cached until the job finishes another run.
import type { JobRuns, RunRecord } from '../../model/api-types.js';
import {
  HEATMAP_WINDOWS,
  bucketRuns,
  shadeLevel,
  type HeatCell,
  type HeatmapWindow,
} from '../../model/heatmap.js';
import { jobPath } from '../api.js';
import type { AppContext } from '../context.js';
import { h, setText } from '../dom.js';
import type { Snapshot } from '../store.js';
import type { PanelDefinition } from './panel-host.js';

const MAX_ROWS = 200;
const CONCURRENCY = 4;

interface CacheEntry {
  readonly finishedAt: string | null;
  readonly runs: readonly RunRecord[];
}

export const heatmapPanel: PanelDefinition = {
  id: 'heatmap',
  title: 'Activity heatmap',
  wide: true,
  mount(body, ctx: AppContext) {
    const cache = new Map<string, CacheEntry>();
    let window: HeatmapWindow = '24h';
    let disposed = false;
    let loading = false;
    const note = h('p', { class: 'muted' });
    const grid = h('div', {
      class: 'heatmap',
      role: 'table',
      'aria-label': 'Runs per job over time',
    });
    const windows = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Time window' });
    const renderWindows = (): void => {
      windows.replaceChildren(
        ...(Object.keys(HEATMAP_WINDOWS) as HeatmapWindow[]).map((id) =>
          h(
            'button',
            {
              class: 'btn btn-small',
              type: 'button',
              'aria-pressed': id === window ? 'true' : 'false',
              onclick: () => {
                window = id;
                renderWindows();
                draw();
              },
            },
            id,
          ),
        ),
      );
    };
    body.append(h('div', { class: 'panel-toolbar' }, windows), note, grid);
    renderWindows();

    const rowsOf = (snapshot: Snapshot): string[] =>
      snapshot.rows.map((row) => row.name).slice(0, MAX_ROWS);

    const load = async (snapshot: Snapshot): Promise<void> => {
      if (loading) return;
      loading = true;
      const stale = rowsOf(snapshot).filter((name) => {
        const finished = snapshot.byName.get(name)?.job.last_run?.finished_at ?? null;
        return cache.get(name)?.finishedAt !== finished;
      });
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < stale.length && !disposed) {
          const name = stale[next++]!;
          const finishedAt = snapshot.byName.get(name)?.job.last_run?.finished_at ?? null;
          try {
            const data = await ctx.api.json<JobRuns>(jobPath(name, 'runs'));
            cache.set(name, { finishedAt, runs: data.runs });
          } catch {
            cache.set(name, { finishedAt, runs: [] });
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      loading = false;
      if (!disposed) draw();
    };

    const draw = (): void => {
      const snapshot = ctx.store.snapshot;
      if (snapshot === null) return;
      const now = ctx.clock.now();
      const names = rowsOf(snapshot);
      const maps = names.map((name) => ({
        name,
        cells: bucketRuns(cache.get(name)?.runs ?? [], now, HEATMAP_WINDOWS[window]),
      }));
      const busiest = Math.max(0, ...maps.flatMap((m) => m.cells.map((c) => c.total)));
      setText(
        note,
        `${names.length < snapshot.rows.length ? `First ${names.length} of ${snapshot.rows.length} jobs. ` : ''}Each row is a job, each column 1/24 of the window, newest on the right. History is what the daemon keeps (the last 50 runs per job).`,
      );
      grid.replaceChildren(
        ...maps.map(({ name, cells }) =>
          h(
            'div',
            { class: 'heat-row', role: 'row' },
            h(
              'a',
              {
                class: 'heat-name job-link',
                role: 'rowheader',
                href: `#job/${encodeURIComponent(name)}`,
              },
              name,
            ),
            ...cells.map((cell, index) => heatCell(cell, busiest, index, window)),
          ),
        ),
      );
    };
    grid.addEventListener('click', (event) => {
      if ((event.target as HTMLElement).closest('a') !== null) ctx.nav.closeTop();
    });
    return {
      onSnapshot(snapshot) {
        draw();
        void load(snapshot);
      },
      dispose: () => {
        disposed = true;
      },
    };
  },
};

function heatCell(
  cell: HeatCell,
  busiest: number,
  index: number,
  window: HeatmapWindow,
): HTMLElement {
  const span = HEATMAP_WINDOWS[window] / 24;
  const agoStart = Math.round(((24 - index) * span) / 60_000);
  const label =
    cell.total === 0
      ? `${agoStart} min ago: no runs`
      : `${agoStart} min ago: ${cell.total} runs (${cell.counts.success} ok, ${cell.counts.failure} failed, ${cell.counts.cancelled} cancelled)`;
  return h('span', {
    class: `heat-cell heat-${cell.worst ?? 'none'} shade-${shadeLevel(cell.total, busiest)}`,
    role: 'cell',
    title: label,
    'aria-label': label,
  });
}
