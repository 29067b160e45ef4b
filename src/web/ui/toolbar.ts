// The toolbar above the job table (docs/dashboard.md "Job table"): the text filter (`/` focuses
// it), the status filter, the sort dropdown and direction, the optional-column picker, "run
// failing", and buttons for the panels.
import { SORT_KEYS, STATUS_FILTERS, type SortKey, type StatusFilter } from '../model/job-query.js';
import type { AppContext } from './context.js';
import { h, uniqueId } from './dom.js';
import { OPTIONAL_COLUMNS, type OptionalColumn } from './prefs.js';

const STATUS_LABELS: Readonly<Record<StatusFilter, string>> = {
  all: 'All statuses',
  fail: 'Failing',
  run: 'Running',
  ok: 'OK',
  pending: 'Pending',
  off: 'Disabled',
};

const SORT_LABELS: Readonly<Record<SortKey, string>> = {
  status: 'Status',
  name: 'Name',
  owner: 'Owner',
  schedule: 'Schedule',
  last: 'Last run',
  took: 'Duration',
  next: 'Next run',
  trend: 'Trend (failures)',
  policy: 'Policy',
  tz: 'Timezone',
  nextAt: 'Next at',
  rate: 'Success rate',
};

const COLUMN_LABELS: Readonly<Record<OptionalColumn, string>> = {
  policy: 'Policy (clusterPolicy)',
  tz: 'TZ',
  nextAt: 'Next at (your clock)',
  rate: 'Rate (success %)',
};

export class Toolbar {
  readonly element: HTMLElement;
  readonly filter: HTMLInputElement;

  constructor(ctx: AppContext, onText: (text: string) => void) {
    const filterId = uniqueId('filter');
    this.filter = h('input', {
      id: filterId,
      class: 'filter',
      type: 'search',
      placeholder: 'Filter jobs  ( / )',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.filter.addEventListener('input', () => onText(this.filter.value));
    this.filter.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.filter.value !== '') {
        event.stopPropagation();
        this.filter.value = '';
        onText('');
      } else if (event.key === 'Enter' || event.key === 'ArrowDown') {
        event.preventDefault();
        this.filter.blur();
        ctx.actions.run('select-next');
      }
    });

    const status = h(
      'select',
      { class: 'select', 'aria-label': 'Status filter' },
      ...STATUS_FILTERS.map((value) => h('option', { value }, STATUS_LABELS[value])),
    );
    status.addEventListener('change', () =>
      ctx.prefs.update({ statusFilter: status.value as StatusFilter }),
    );

    const sort = h(
      'select',
      { class: 'select', 'aria-label': 'Sort by' },
      ...SORT_KEYS.map((value) => h('option', { value }, SORT_LABELS[value])),
    );
    sort.addEventListener('change', () =>
      ctx.prefs.update({ sort: { key: sort.value as SortKey, descending: false } }),
    );
    const direction = h('button', { class: 'btn', type: 'button' });
    direction.addEventListener('click', () => {
      const current = ctx.prefs.value.sort;
      ctx.prefs.update({ sort: { ...current, descending: !current.descending } });
    });

    const columnBoxes = OPTIONAL_COLUMNS.map((column) => {
      const box = h('input', { type: 'checkbox', value: column });
      box.addEventListener('change', () => {
        const chosen = OPTIONAL_COLUMNS.filter((c) =>
          c === column ? box.checked : ctx.prefs.value.columns.includes(c),
        );
        ctx.prefs.update({ columns: chosen });
      });
      return { column, box, label: h('label', { class: 'check' }, box, COLUMN_LABELS[column]) };
    });
    const columns = h(
      'details',
      { class: 'menu' },
      h('summary', { class: 'btn' }, 'Columns'),
      h(
        'div',
        { class: 'menu-body', role: 'group', 'aria-label': 'Optional columns' },
        ...columnBoxes.map((c) => c.label),
      ),
    );

    const panelButton = (id: string, label: string, keys?: string): HTMLElement =>
      h(
        'button',
        {
          class: 'btn',
          type: 'button',
          title: keys === undefined ? label : `${label} (${keys})`,
          onclick: () => ctx.actions.run(id),
        },
        label,
      );

    this.element = h(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Job table controls' },
      h('label', { class: 'visually-hidden', for: filterId }, 'Filter jobs by name or command'),
      this.filter,
      status,
      sort,
      direction,
      columns,
      h('span', { class: 'toolbar-gap' }),
      panelButton('run-failing', 'Run failing'),
      panelButton('panel:timeline', 'Timeline', 'i'),
      panelButton('panel:mitigate', 'Mitigate'),
      panelButton('panel:tail', 'Tail'),
      panelButton('panel:heatmap', 'Heatmap'),
      panelButton('panel:sandbox', 'Sandbox'),
      panelButton('panel:state', 'State'),
    );

    const sync = (): void => {
      const prefs = ctx.prefs.value;
      status.value = prefs.statusFilter;
      sort.value = prefs.sort.key;
      direction.textContent = prefs.sort.descending ? '↓ Desc' : '↑ Asc';
      direction.setAttribute(
        'aria-label',
        `Sort direction: ${prefs.sort.descending ? 'descending' : 'ascending'} (click to reverse)`,
      );
      for (const { column, box } of columnBoxes) box.checked = prefs.columns.includes(column);
    };
    ctx.prefs.subscribe(sync);
    sync();
  }
}
