// Filtering and sorting of the job table (docs/dashboard.md "Job table"): a text filter on name
// and command, a status filter, and a sort on any column, the second click reversing it. Pure;
// rows with no value for the sort key stay last in both directions, ties go by name.
import type { JobRow } from './job-status.js';
import { STATUS_META } from './job-status.js';

export const STATUS_FILTERS = ['all', 'fail', 'run', 'ok', 'pending', 'off'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export const SORT_KEYS = [
  'status',
  'name',
  'owner',
  'schedule',
  'last',
  'took',
  'next',
  'trend',
  'policy',
  'tz',
  'nextAt',
  'rate',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface SortSpec {
  readonly key: SortKey;
  readonly descending: boolean;
}

export interface JobQuery {
  readonly text: string;
  readonly status: StatusFilter;
  readonly sort: SortSpec;
}

export function matchesStatus(row: JobRow, filter: StatusFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'fail':
      return row.status === 'failed';
    case 'run':
      return row.status === 'running';
    case 'ok':
      return row.status === 'ok';
    case 'pending':
      return row.status === 'pending';
    case 'off':
      return row.status === 'disabled';
  }
}

/** Rows passing both filters, in sort order (a new array; the input is left alone). */
export function queryRows(rows: readonly JobRow[], query: JobQuery): JobRow[] {
  const needle = query.text.trim().toLowerCase();
  const kept = rows.filter(
    (row) => matchesStatus(row, query.status) && (needle === '' || row.searchText.includes(needle)),
  );
  const valueOf = SORT_VALUES[query.sort.key];
  const sign = query.sort.descending ? -1 : 1;
  const keyed = kept.map((row) => ({ row, value: valueOf(row) }));
  keyed.sort((a, b) => {
    if (a.value === null || b.value === null) {
      if (a.value !== b.value) return a.value === null ? 1 : -1;
    } else if (a.value !== b.value) {
      return sign * (a.value < b.value ? -1 : 1);
    }
    return a.row.name < b.row.name ? -1 : a.row.name > b.row.name ? 1 : 0;
  });
  return keyed.map((entry) => entry.row);
}

/** Clicking a column header: the same key reverses, another key sorts ascending. */
export function toggleSort(current: SortSpec, key: SortKey): SortSpec {
  return current.key === key
    ? { key, descending: !current.descending }
    : { key, descending: false };
}

type SortValue = string | number | null;

const SORT_VALUES: Readonly<Record<SortKey, (row: JobRow) => SortValue>> = {
  status: (row) => STATUS_META[row.status].rank,
  name: (row) => row.name.toLowerCase(),
  owner: (row) => row.job.clusterOwner ?? null,
  schedule: (row) => row.job.schedule,
  // Most recent first reads naturally as "ascending age".
  last: (row) => (row.lastFinishedMs === null ? null : -row.lastFinishedMs),
  took: (row) => row.job.last_run?.duration ?? null,
  next: (row) => row.nextFireMs,
  nextAt: (row) => row.nextFireMs,
  trend: (row) => -row.recentFailures,
  policy: (row) => row.job.clusterPolicy ?? null,
  tz: (row) => row.job.timezone ?? 'local',
  rate: (row) => row.successRate,
};
