// The drawer's History tab (docs/dashboard.md "Job drawer"): the stats of `GET /jobs/{n}/runs`,
// one bar per run (height = duration, colour = outcome, newest right) and the run table, newest
// first, whose Output column opens a run's archived output (`GET /jobs/{n}/output`, matched by
// `finished_at`) in the ArchiveViewer above it, or says the run has none. Re-read whenever the
// job list shows a newer finished run. While the browser run ledger is on, a note above says what
// it holds of the job (docs/dashboard.md "Run ledger, notifications and cues").
import type {
  ArchiveEntryWire,
  JobArchivesWire,
  JobRuns,
  RunRecord,
} from '../../model/api-types.js';
import { archivesByFinished, type ArchiveListing } from '../../model/archived-output.js';
import { formatAge, formatBytes, formatDuration, formatUtc, parseIso } from '../../model/format.js';
import { SLOW_MIN_SAMPLES } from '../../model/ledger-baseline.js';
import { STATUS_META, outcomeStatus } from '../../model/job-status.js';
import { ApiError, jobPath } from '../api.js';
import { AsyncView } from '../async-view.js';
import type { AppContext } from '../context.js';
import { h, svg } from '../dom.js';
import { ArchiveViewer } from './archive-viewer.js';
import type { DrawerTab, DrawerTabInstance } from './tab.js';

/** Archives listed per read: as many as the run table shows runs (at most 50). */
const ARCHIVE_LIST_LIMIT = 50;

/** What the daemon says about the job's archives; never rejects. */
export async function readArchives(ctx: AppContext, job: string): Promise<ArchiveListing> {
  try {
    const listed = await ctx.api.optionalJson<JobArchivesWire>(
      `${jobPath(job, 'output')}?limit=${ARCHIVE_LIST_LIMIT}`,
    );
    // A 404 for a job the drawer shows: the daemon has no store to read.
    if (listed === null) return { kind: 'no-store' };
    return { kind: 'listed', byFinished: archivesByFinished(listed.archives) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 503) return { kind: 'opening' };
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
}

/** Opens an archive's output (the tab's ArchiveViewer); `opener` gets the focus back. */
export type OpenArchive = (entry: ArchiveEntryWire, opener: HTMLElement) => void;

export const historyTab: DrawerTab = {
  id: 'history',
  label: 'History',
  available: () => Promise.resolve(true),
  mount(host, ctx, job): DrawerTabInstance {
    const view = new AsyncView('history');
    const viewer = new ArchiveViewer(ctx, job);
    host.append(viewer.element, view.element);
    const open: OpenArchive = (entry, opener) => viewer.open(entry, opener);
    // The run ledger's note (docs/dashboard.md "Run ledger, notifications and cues").
    const note = h('p', { class: 'ledger-note', hidden: true });
    viewer.element.after(note);
    const syncNote = (): void => renderLedgerNote(note, ctx, job);
    const offLedger = ctx.ledger.subscribe(syncNote);
    syncNote();
    let shown: string | null | undefined;
    return {
      onRow(row) {
        const finished = row?.job.last_run?.finished_at ?? null;
        if (finished === shown) return;
        shown = finished;
        view.load(async () => {
          const [runs, archives] = await Promise.all([
            ctx.api.json<JobRuns>(jobPath(job, 'runs')),
            readArchives(ctx, job),
          ]);
          return renderHistory(runs, archives, open);
        });
      },
      dispose: () => {
        offLedger();
        view.dispose();
        viewer.dispose();
      },
    };
  },
};

/** The ledger's long-horizon line for the job; hidden while the ledger is off. */
function renderLedgerNote(note: HTMLElement, ctx: AppContext, job: string): void {
  note.hidden = ctx.ledger.state !== 'on';
  if (note.hidden) return;
  const stats = ctx.ledger.statsOf(job);
  if (stats === null) {
    note.replaceChildren('Run ledger (this browser): no run of this job recorded yet.');
    return;
  }
  const parts = [
    `${stats.runs} run${stats.runs === 1 ? '' : 's'}`,
    `${stats.ok} ok / ${stats.failed} failed`,
  ];
  if (stats.oldestMs !== null)
    parts.push(`oldest ${formatAge(ctx.clock.now() - stats.oldestMs)} ago`);
  parts.push(
    stats.baseline.kind === 'ready'
      ? `median ${formatDuration(stats.baseline.medianS)}`
      : `baseline after ${SLOW_MIN_SAMPLES} successful runs (${stats.baseline.samples} so far)`,
  );
  note.replaceChildren(
    'Run ledger (this browser): ',
    h('strong', {}, parts.join(' · ')),
    ...(stats.slow && stats.latest !== null
      ? [
          ' · ',
          h(
            'span',
            { class: 'ledger-slow' },
            `latest run slow (${formatDuration(stats.latest.durationS)}, ×${stats.latest.ratio.toFixed(1)})`,
          ),
        ]
      : []),
    ...(stats.regressed
      ? [
          ' · ',
          h('span', { class: 'ledger-regressed' }, 'regression: failed after a run of successes'),
        ]
      : []),
  );
}

function stat(label: string, value: string): HTMLElement {
  return h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value));
}

/** The line above the run table about archived output; null when runs can be opened. */
function archiveNote(archives: ArchiveListing | null): HTMLElement | null {
  const note = (text: string): HTMLElement => h('p', { class: 'muted archive-note' }, text);
  if (archives === null) return null;
  switch (archives.kind) {
    case 'listed':
      return archives.byFinished.size === 0
        ? note(
            'No run of this job has archived output (archiveOutput is off, or no archived run is kept).',
          )
        : null;
    case 'no-store':
      return note(
        'Run output is not archived: this daemon has no state store (no state: section), so only live output is shown, in the Logs tab.',
      );
    case 'opening':
      return note('The state store is still opening: archived run output will be listed shortly.');
    case 'error':
      return h('p', { class: 'error archive-note' }, archives.message);
  }
}

export function renderHistory(
  data: JobRuns,
  archives: ArchiveListing | null = null,
  open: OpenArchive | null = null,
): Element[] {
  const { stats, runs } = data;
  const note = archiveNote(archives);
  if (runs.length === 0) {
    return [h('p', { class: 'muted' }, 'No runs recorded yet.'), ...(note === null ? [] : [note])];
  }
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
  const table = runTable(runs, archives?.kind === 'listed' ? archives.byFinished : null, open);
  return [grid, durationBars(runs), ...(note === null ? [] : [note]), table];
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

/** A run's Output cell: a button opening its archive, or a plain "Not archived". */
function outputCell(
  run: RunRecord,
  when: string,
  entry: ArchiveEntryWire | undefined,
  open: OpenArchive | null,
): HTMLElement {
  if (entry === undefined || open === null) {
    return h('td', { class: 'muted' }, 'Not archived');
  }
  const button = h(
    'button',
    {
      class: 'btn btn-small archive-open',
      type: 'button',
      'aria-label': `View output of the run finished ${when} (${run.outcome})`,
    },
    'View output',
  );
  button.addEventListener('click', () => open(entry, button));
  return h('td', {}, button);
}

function runTable(
  runs: readonly RunRecord[],
  archives: ReadonlyMap<string, ArchiveEntryWire> | null,
  open: OpenArchive | null,
): HTMLElement {
  const rows = [...runs].reverse().map((run) => {
    const status = outcomeStatus(run.outcome);
    const finished = parseIso(run.finished_at);
    const when = finished === null ? run.finished_at : formatUtc(finished);
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
      h('td', {}, when),
      h('td', { class: 'num' }, formatDuration(run.duration)),
      h('td', { class: 'reason' }, run.fail_reason ?? ''),
      h(
        'td',
        { class: 'num' },
        run.resources === null
          ? '—'
          : `${run.resources.cpu_total_seconds.toFixed(2)} s · ${formatBytes(run.resources.max_rss_bytes)}`,
      ),
      ...(archives === null ? [] : [outputCell(run, when, archives.get(run.finished_at), open)]),
    );
  });
  const labels = ['Outcome', 'Exit', 'Finished', 'Duration', 'Reason', 'CPU / RSS'];
  if (archives !== null) labels.push('Output');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'runs' },
      h('caption', { class: 'visually-hidden' }, 'Runs, newest first'),
      h('thead', {}, h('tr', {}, ...labels.map((label) => h('th', { scope: 'col' }, label)))),
      h('tbody', {}, ...rows),
    ),
  );
}
