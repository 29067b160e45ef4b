// The job table's columns (docs/dashboard.md "Job table"): what each cell
// shows, how wide it may get, which sort key its header uses, and which columns give way first
// on a narrow screen. A cell's update is called on every poll and every second for visible rows
// only, and writes to the DOM only what changed.
// Must not: add listeners per cell — the table delegates clicks by `data-action`.
import { describeCron } from '../../model/cron-english.js';
import {
  formatAge,
  formatBytes,
  formatCountdown,
  formatDuration,
  formatPercent,
  formatUtc,
  pad2,
} from '../../model/format.js';
import type { SortKey } from '../../model/job-query.js';
import { STATUS_META, timezoneLabel, type JobRow } from '../../model/job-status.js';
import { formatWall } from '../../model/schedule-preview.js';
import type { OptionalColumn } from '../prefs.js';
import { h, setAttr, setText } from '../dom.js';
import { renderSparkline, sparkKey, sparkSummary } from './sparkline.js';

export type ColumnId =
  | 'status'
  | 'name'
  | 'owner'
  | 'schedule'
  | 'last'
  | 'took'
  | 'next'
  | 'trend'
  | 'actions'
  | OptionalColumn;

export interface Column {
  readonly id: ColumnId;
  readonly label: string;
  readonly sortKey: SortKey | null;
  /** Grid track at full width, e.g. `7rem` or `minmax(10rem, 3fr)`; squeezed to minWidth. */
  readonly track: string;
  /** Narrowest useful width in px (for dropping columns on small screens). */
  readonly minWidth: number;
  /** Higher stays longer when space runs out; Infinity never goes. */
  readonly priority: number;
  readonly create: () => HTMLElement;
  readonly update: (cell: HTMLElement, row: JobRow, nowMs: number, marks: RowMarks) => void;
}

/** What the page knows of a job beyond its row: the run ledger's verdict. */
export interface RowMarks {
  /** The latest run's multiple of the ledger's median when it was slow, else null. */
  readonly slowRatio: number | null;
}

/** Remembers the last value written into a cell part, to skip unchanged work. */
const lastKey = new WeakMap<Element, string>();
function changed(node: Element, key: string): boolean {
  if (lastKey.get(node) === key) return false;
  lastKey.set(node, key);
  return true;
}

function part(cell: HTMLElement, index: number): HTMLElement {
  return cell.children[index] as HTMLElement;
}

const statusColumn: Column = {
  id: 'status',
  label: 'Status',
  sortKey: 'status',
  track: '7.5rem',
  minWidth: 44,
  priority: Infinity,
  create: () =>
    h(
      'div',
      { class: 'cell cell-status', role: 'cell' },
      h(
        'span',
        { class: 'status' },
        h('span', { class: 'glyph', 'aria-hidden': 'true' }),
        h('span', { class: 'status-label' }),
      ),
    ),
  update(cell, row) {
    const badge = part(cell, 0);
    if (!changed(badge, row.status)) return;
    const meta = STATUS_META[row.status];
    badge.className = `status status-${row.status}`;
    setText(part(badge, 0), meta.glyph);
    setText(part(badge, 1), meta.label);
  },
};

const nameColumn: Column = {
  id: 'name',
  label: 'Job',
  sortKey: 'name',
  track: 'minmax(120px, 3fr)',
  minWidth: 120,
  priority: Infinity,
  create: () =>
    h(
      'div',
      { class: 'cell cell-name', role: 'cell' },
      h(
        'div',
        { class: 'name-line' },
        h('a', { class: 'job-link' }),
        h('span', { class: 'chips' }),
      ),
      h('div', { class: 'cmd' }),
    ),
  update(cell, row, nowMs, marks) {
    const link = part(part(cell, 0), 0) as HTMLAnchorElement;
    if (changed(link, row.name)) {
      link.textContent = row.name;
      link.href = `#job/${encodeURIComponent(row.name)}`;
    }
    const cmd = part(cell, 1);
    if (changed(cmd, row.job.command)) {
      cmd.textContent = row.job.command;
      cmd.title = row.job.command;
    }
    updateChips(part(part(cell, 0), 1), row, nowMs, marks);
  },
};

function updateChips(chips: HTMLElement, row: JobRow, nowMs: number, marks: RowMarks): void {
  const { retry, running_resources: res } = row.job;
  const texts: [string, string, string?][] = [];
  // The run ledger's verdict on the latest run (docs/dashboard.md "Run ledger, notifications and cues").
  if (marks.slowRatio !== null && !row.job.running)
    texts.push([
      'chip chip-warn chip-slow',
      `slow ×${marks.slowRatio.toFixed(1)}`,
      'The latest run took far longer than the median of its successful runs in this browser’s run ledger',
    ]);
  if (retry !== undefined) {
    const due = retry.nextRetryAt === null ? null : Date.parse(retry.nextRetryAt) - nowMs;
    const of = retry.maxAttempts === null ? '∞' : String(retry.maxAttempts);
    texts.push([
      'chip chip-retry',
      `retry ${retry.attempt}/${of}${due === null ? '' : ` · ${formatCountdown(due)}`}`,
    ]);
  }
  if (res !== undefined)
    texts.push([
      'chip chip-res',
      `CPU ${formatPercent(res.cpu_percent)} · ${formatBytes(res.rss_bytes)}`,
    ]);
  if (row.job.rebootPending === true) texts.push(['chip', '@reboot pending']);
  const key = texts.map((t) => t[1]).join('|');
  if (!changed(chips, key)) return;
  chips.replaceChildren(
    ...texts.map(([className, text, title]) => h('span', { class: className, title }, text)),
  );
}

const ownerColumn: Column = {
  id: 'owner',
  label: 'Owner',
  sortKey: 'owner',
  track: 'minmax(80px, 1fr)',
  minWidth: 80,
  priority: 3,
  create: () => h('div', { class: 'cell cell-owner', role: 'cell' }),
  update(cell, row) {
    const { clusterOwner, clusterPolicy } = row.job;
    const text =
      clusterPolicy === 'EveryNode'
        ? 'all nodes'
        : clusterOwner === undefined
          ? '—'
          : clusterOwner === null
            ? 'no quorum'
            : clusterOwner;
    setText(cell, text);
  },
};

const scheduleColumn: Column = {
  id: 'schedule',
  label: 'Schedule',
  sortKey: 'schedule',
  track: 'minmax(130px, 2fr)',
  minWidth: 130,
  priority: 5,
  create: () =>
    h(
      'div',
      { class: 'cell cell-schedule', role: 'cell' },
      h('code', { class: 'expr' }),
      h('div', { class: 'english' }),
    ),
  update(cell, row) {
    if (!changed(cell, `${row.job.schedule}|${row.job.timezone ?? ''}`)) return;
    const english = describeCron(row.job.schedule) ?? 'custom schedule';
    setText(part(cell, 0), row.job.schedule);
    setText(part(cell, 1), english);
    cell.title = `${english} (${timezoneLabel(row.job)})`;
  },
};

const lastColumn: Column = {
  id: 'last',
  label: 'Last run',
  sortKey: 'last',
  track: '7rem',
  minWidth: 80,
  priority: 8,
  create: () =>
    h(
      'div',
      { class: 'cell cell-last', role: 'cell' },
      h('span', { class: 'age' }),
      h('span', { class: 'exit' }),
    ),
  update(cell, row, nowMs) {
    const run = row.job.last_run;
    setText(
      part(cell, 0),
      row.lastFinishedMs === null ? 'never' : formatAge(nowMs - row.lastFinishedMs),
    );
    const exit = part(cell, 1);
    const exitKey = run === null ? '' : `${run.outcome}:${run.exit_code}:${run.finished_at}`;
    if (changed(exit, exitKey)) {
      exit.textContent = run === null || run.exit_code === null ? '' : `exit ${run.exit_code}`;
      exit.className = `exit exit-${run?.outcome ?? 'none'}`;
      cell.title =
        run === null
          ? 'Never ran'
          : `Finished ${formatUtc(row.lastFinishedMs ?? 0)}${run.fail_reason ? ` — ${run.fail_reason}` : ''}`;
    }
  },
};

const tookColumn: Column = {
  id: 'took',
  label: 'Took',
  sortKey: 'took',
  track: '5.5rem',
  minWidth: 64,
  priority: 4,
  create: () => h('div', { class: 'cell cell-took num', role: 'cell' }),
  update(cell, row) {
    setText(cell, formatDuration(row.job.last_run?.duration));
  },
};

const nextColumn: Column = {
  id: 'next',
  label: 'Next',
  sortKey: 'next',
  track: '7rem',
  minWidth: 78,
  priority: 7,
  create: () => {
    const cell = h('div', { class: 'cell cell-next num', role: 'cell' });
    // The tooltip (the next fire's wall time in the job's zone) is written when the pointer
    // arrives, not on every update: the first wall time in a zone builds that zone's offset
    // table (tens of ms in a browser), which would land on the first render otherwise.
    cell.addEventListener('pointerenter', () => {
      const row = nextRows.get(cell);
      setAttr(
        cell,
        'title',
        row?.nextFireMs == null
          ? null
          : `${zoneWall(row, row.nextFireMs)} (${timezoneLabel(row.job)})`,
      );
    });
    return cell;
  },
  update(cell, row, nowMs) {
    setText(cell, row.nextFireMs === null ? '—' : formatCountdown(row.nextFireMs - nowMs));
    nextRows.set(cell, row);
  },
};

/** The row each Next cell shows now (cells are recycled by the virtual list). */
const nextRows = new WeakMap<HTMLElement, JobRow>();

/** The wall time of an instant in the job's frame (browser zone for `local`). */
function zoneWall(row: JobRow, atMs: number): string {
  try {
    return formatWall(row.job.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone, atMs);
  } catch {
    return formatUtc(atMs);
  }
}

const trendColumn: Column = {
  id: 'trend',
  label: 'Trend',
  sortKey: 'trend',
  track: '6rem',
  minWidth: 90,
  priority: 2,
  create: () => h('div', { class: 'cell cell-trend', role: 'cell' }),
  update(cell, row) {
    if (!changed(cell, sparkKey(row.job.history))) return;
    cell.replaceChildren(renderSparkline(row.job.history, sparkSummary(row.job.history)));
  },
};

const actionsColumn: Column = {
  id: 'actions',
  label: 'Actions',
  sortKey: null,
  track: '8.5rem',
  minWidth: 110,
  priority: Infinity,
  create: () =>
    h(
      'div',
      { class: 'cell cell-actions', role: 'cell' },
      h('button', { class: 'btn btn-small', type: 'button', 'data-action': 'start' }),
      h('button', { class: 'btn btn-small', type: 'button', 'data-action': 'logs' }, 'Logs'),
    ),
  update(cell, row) {
    const toggle = part(cell, 0) as HTMLButtonElement;
    const key = `${row.name}|${row.job.running}|${row.job.enabled}`;
    if (!changed(cell, key)) return;
    toggle.dataset['action'] = row.job.running ? 'cancel' : 'start';
    toggle.textContent = row.job.running ? 'Stop' : 'Run';
    toggle.className = `btn btn-small ${row.job.running ? 'btn-danger' : ''}`;
    toggle.disabled = !row.job.running && !row.job.enabled;
    toggle.setAttribute('aria-label', `${row.job.running ? 'Stop' : 'Run'} ${row.name}`);
    part(cell, 1).setAttribute('aria-label', `Logs of ${row.name}`);
  },
};

const policyColumn: Column = {
  id: 'policy',
  label: 'Policy',
  sortKey: 'policy',
  track: '6.5rem',
  minWidth: 80,
  priority: 1,
  create: () => h('div', { class: 'cell', role: 'cell' }),
  update(cell, row) {
    setText(cell, row.job.clusterPolicy ?? '—');
  },
};

const tzColumn: Column = {
  id: 'tz',
  label: 'TZ',
  sortKey: 'tz',
  track: 'minmax(70px, 1fr)',
  minWidth: 70,
  priority: 1,
  create: () => h('div', { class: 'cell', role: 'cell' }),
  update(cell, row) {
    setText(cell, timezoneLabel(row.job));
  },
};

const nextAtColumn: Column = {
  id: 'nextAt',
  label: 'Next at',
  sortKey: 'nextAt',
  track: '6rem',
  minWidth: 76,
  priority: 1,
  create: () => h('div', { class: 'cell num', role: 'cell' }),
  update(cell, row) {
    if (row.nextFireMs === null) {
      setText(cell, '—');
      return;
    }
    // The browser's own wall clock (what the viewer's watch says).
    const d = new Date(row.nextFireMs);
    setText(cell, `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`);
  },
};

const rateColumn: Column = {
  id: 'rate',
  label: 'Rate',
  sortKey: 'rate',
  track: '4.5rem',
  minWidth: 56,
  priority: 1,
  create: () => h('div', { class: 'cell num', role: 'cell' }, h('span', {})),
  update(cell, row) {
    const value = part(cell, 0);
    const rate = row.successRate;
    setText(value, rate === null ? '—' : `${Math.round(rate * 100)}%`);
    value.className =
      rate === null ? '' : rate >= 0.95 ? 'rate-good' : rate >= 0.75 ? 'rate-warn' : 'rate-bad';
  },
};

/** Every column in display order; optional and cluster ones are filtered by `visibleColumns`. */
export const ALL_COLUMNS: readonly Column[] = [
  statusColumn,
  nameColumn,
  ownerColumn,
  scheduleColumn,
  lastColumn,
  tookColumn,
  nextColumn,
  trendColumn,
  policyColumn,
  tzColumn,
  nextAtColumn,
  rateColumn,
  actionsColumn,
];

/**
 * The columns to show: the fixed ones, the optional ones the viewer picked, Owner only when a
 * job reports one; then the lowest-priority columns go until the rest fit `widthPx`.
 */
/** The grid track of a column: never narrower than its minimum, at most its full width. */
export function trackOf(column: Column): string {
  return column.track.startsWith('minmax(')
    ? column.track
    : `minmax(${column.minWidth}px, ${column.track})`;
}

export function visibleColumns(
  optional: readonly OptionalColumn[],
  showOwner: boolean,
  widthPx: number,
): Column[] {
  const wanted = ALL_COLUMNS.filter((column) => {
    if (column.id === 'owner') return showOwner;
    if (
      column.id === 'policy' ||
      column.id === 'tz' ||
      column.id === 'nextAt' ||
      column.id === 'rate'
    )
      return optional.includes(column.id);
    return true;
  });
  const kept = [...wanted];
  // Each column also costs its share of the column gap; the row has side padding.
  const total = (): number => kept.reduce((sum, column) => sum + column.minWidth + 10, 32);
  while (total() > widthPx) {
    let lowest: Column | null = null;
    for (const column of kept)
      if (lowest === null || column.priority < lowest.priority) lowest = column;
    if (lowest === null || lowest.priority === Infinity) break;
    kept.splice(kept.indexOf(lowest), 1);
  }
  return kept;
}
