// The job table (docs/dashboard.md "Job table"): a virtual list, so 10,000 jobs cost the DOM of
// the ~40 rows on screen. Rows are keyed by job name and reused while their job stays in view;
// clicks are delegated by `data-action`; j/k move a selection that Enter, r, x and c act on.
// The table reads the snapshot and the query (text, status, sort) and re-queries on change.
import { queryRows, toggleSort, type SortKey } from '../../model/job-query.js';
import type { JobRow } from '../../model/job-status.js';
import type { AppContext } from '../context.js';
import { afterPaint, h, setAttr, setText } from '../dom.js';
import type { Prefs } from '../prefs.js';
import type { Snapshot } from '../store.js';
import { trackOf, visibleColumns, type Column, type RowMarks } from './columns.js';

const OVERSCAN = 6;

interface RenderedRow {
  readonly element: HTMLElement;
  readonly cells: HTMLElement[];
  name: string;
}

export class JobTable {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #scroller: HTMLElement;
  readonly #head: HTMLElement;
  readonly #body: HTMLElement;
  readonly #empty: HTMLElement;
  readonly #summary: HTMLElement;
  #columns: Column[] = [];
  #columnsKey = '';
  #rows: JobRow[] = [];
  #rendered = new Map<string, RenderedRow>();
  #rowHeight = 44;
  #headHeight = 0;
  #width = 1024;
  #viewportHeight = 800;
  /** False until the resize observer reported the scroller's box (it reports after a frame). */
  #measured = false;
  #scrollTop = 0;
  #text = '';
  #selected: string | null = null;
  #frame = 0;
  /**
   * Rows beyond the viewport on each side: none until the first rows are painted (the first
   * frame has only what is on screen: `first`, then `waiting` for that frame), OVERSCAN after.
   */
  #overscan: 'first' | 'waiting' | 'on' = 'first';

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#head = h('div', { class: 'trow thead', role: 'row', 'aria-rowindex': 1 });
    this.#body = h('div', { class: 'tbody', role: 'rowgroup' });
    this.#empty = h('p', { class: 'empty', hidden: true });
    this.#summary = h('p', { class: 'visually-hidden', 'aria-live': 'polite' });
    this.#scroller = h(
      'div',
      { class: 'tscroll', tabindex: -1 },
      h('div', { role: 'rowgroup', class: 'thead-group' }, this.#head),
      this.#body,
      this.#empty,
    );
    this.element = h(
      'div',
      { class: 'job-table', role: 'table', 'aria-label': 'Jobs' },
      this.#scroller,
      this.#summary,
    );
    // Geometry is cached from scroll and resize events: reading it during a poll's update would
    // force a layout of the whole page in the middle of the DOM writes.
    this.#scroller.addEventListener(
      'scroll',
      () => {
        this.#scrollTop = this.#scroller.scrollTop;
        this.#schedule();
      },
      { passive: true },
    );
    this.#body.addEventListener('click', (event) => this.#onClick(event));
    new ResizeObserver((entries) => {
      const box = entries[entries.length - 1]?.contentRect;
      if (box !== undefined) {
        this.#width = box.width;
        this.#viewportHeight = box.height;
        this.#measured = true;
      }
      this.#layout();
      this.#schedule();
    }).observe(this.#scroller);
    ctx.store.on('snapshot', (snapshot) => this.#onSnapshot(snapshot));
    ctx.prefs.subscribe(() => this.refresh());
    ctx.ticker.subscribe((now) => this.#tick(now));
    ctx.ledger.subscribe(() => this.refresh());
  }

  #marks(name: string): RowMarks {
    return { slowRatio: this.#ctx.ledger.slowRatio(name) };
  }

  /** The text filter (from the toolbar). */
  setText(text: string): void {
    this.#text = text;
    this.refresh();
  }

  /** Re-query and re-render (filter, sort or column change). */
  refresh(): void {
    const snapshot = this.#ctx.store.snapshot;
    if (snapshot !== null) this.#onSnapshot(snapshot);
    else this.#layout();
  }

  get visibleRows(): readonly JobRow[] {
    return this.#rows;
  }

  get selected(): string | null {
    return this.#selected;
  }

  /** Moves the selection by `delta` rows (j/k) and scrolls it into view. */
  moveSelection(delta: number): void {
    if (this.#rows.length === 0) return;
    const index =
      this.#selected === null ? -1 : this.#rows.findIndex((row) => row.name === this.#selected);
    const next =
      index === -1
        ? delta > 0
          ? 0
          : this.#rows.length - 1
        : Math.max(0, Math.min(this.#rows.length - 1, index + delta));
    this.select(this.#rows[next]!.name);
  }

  select(name: string | null): void {
    this.#selected = name;
    const index = name === null ? -1 : this.#rows.findIndex((row) => row.name === name);
    if (index >= 0) {
      const top = index * this.#rowHeight;
      const view = this.#viewportHeight - this.#headHeight;
      let scrollTo: number | null = null;
      if (top < this.#scrollTop) scrollTo = top;
      else if (top + this.#rowHeight > this.#scrollTop + view)
        scrollTo = top + this.#rowHeight - view;
      if (scrollTo !== null) {
        this.#scroller.scrollTop = scrollTo;
        this.#scrollTop = scrollTo;
      }
      setText(this.#summary, `Selected ${name}, row ${index + 1} of ${this.#rows.length}`);
    }
    this.#render();
  }

  #onSnapshot(snapshot: Snapshot): void {
    const prefs = this.#ctx.prefs.value;
    this.#rows = queryRows(snapshot.rows, {
      text: this.#text,
      status: prefs.statusFilter,
      sort: prefs.sort,
    });
    this.#layout();
    // Written only when they change: any write, even of the same value, restyles the element,
    // and the empty note sits outside the rows' containment (a layout of the whole page).
    setAttr(this.element, 'aria-rowcount', String(this.#rows.length + 1));
    const hidden = snapshot.rows.length - this.#rows.length;
    const noRows = this.#rows.length === 0;
    if (this.#empty.hidden === noRows) this.#empty.hidden = !noRows;
    setText(
      this.#empty,
      snapshot.rows.length === 0
        ? 'No jobs are configured.'
        : `No job matches the filter (${hidden} hidden).`,
    );
    this.#render();
  }

  /** Picks the columns for the width and the preferences; rebuilds rows when they change. */
  #layout(): void {
    const prefs: Prefs = this.#ctx.prefs.value;
    const snapshot = this.#ctx.store.snapshot;
    const showOwner = snapshot?.rows.some((row) => row.job.clusterOwner !== undefined) ?? false;
    if (!this.#measured && snapshot !== null && this.#scroller.isConnected) {
      // Rows before the first frame (the early /jobs body): the observer has not reported yet, so
      // the box is read once here (the same content box it reports) rather than guessed.
      this.#width = this.#scroller.clientWidth || this.#width;
      this.#viewportHeight = this.#scroller.clientHeight || this.#viewportHeight;
    }
    const width = this.#width;
    // A larger UI scale (docs/dashboard.md "UI scale and font") makes every column wider and
    // every row taller: columns are dropped as on a screen narrower by the same factor.
    const scale = prefs.uiScale / 100;
    const columns = visibleColumns(prefs.columns, showOwner, width / scale);
    const key = `${columns.map((column) => column.id).join(',')}|${prefs.sort.key}|${prefs.sort.descending}|${prefs.density}|${width}|${scale}`;
    if (key === this.#columnsKey) return;
    // Reading styles forces a style recalc: done only when the layout inputs changed, never per poll.
    this.#columnsKey = key;
    this.#columns = columns;
    const rowHeight = parseFloat(getComputedStyle(this.element).getPropertyValue('--row-h'));
    this.#rowHeight = (rowHeight || 44) * scale;
    this.element.style.setProperty('--cols', columns.map(trackOf).join(' '));
    this.#head.replaceChildren(...columns.map((column) => this.#headerCell(column, prefs)));
    this.#headHeight = this.#head.offsetHeight;
    for (const rendered of this.#rendered.values()) rendered.element.remove();
    this.#rendered.clear();
  }

  #headerCell(column: Column, prefs: Prefs): HTMLElement {
    const sorted = column.sortKey !== null && prefs.sort.key === column.sortKey;
    const cell = h('div', {
      class: `cell th th-${column.id}`,
      role: 'columnheader',
      'aria-sort': sorted
        ? prefs.sort.descending
          ? 'descending'
          : 'ascending'
        : column.sortKey === null
          ? null
          : 'none',
    });
    if (column.sortKey === null) {
      cell.append(h('span', { class: 'visually-hidden' }, column.label));
      return cell;
    }
    const key: SortKey = column.sortKey;
    cell.append(
      h(
        'button',
        {
          class: 'sort-btn',
          type: 'button',
          title: `Sort by ${column.label.toLowerCase()}`,
          onclick: () =>
            this.#ctx.prefs.update({ sort: toggleSort(this.#ctx.prefs.value.sort, key) }),
        },
        column.label,
        h(
          'span',
          { class: 'sort-mark', 'aria-hidden': 'true' },
          sorted ? (prefs.sort.descending ? '▼' : '▲') : '',
        ),
      ),
    );
    return cell;
  }

  #schedule(): void {
    if (this.#frame !== 0) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render();
    });
  }

  #render(): void {
    const total = this.#rows.length;
    this.#body.style.height = `${total * this.#rowHeight}px`;
    const top = Math.max(0, this.#scrollTop - this.#headHeight);
    const viewport = this.#viewportHeight;
    const overscan = this.#overscan === 'on' ? OVERSCAN : 0;
    const first = Math.max(0, Math.floor(top / this.#rowHeight) - overscan);
    const last = Math.min(total, Math.ceil((top + viewport) / this.#rowHeight) + overscan);
    if (this.#overscan === 'first' && total > 0) {
      this.#overscan = 'waiting';
      void afterPaint(this.#ctx.clock).then(() => {
        this.#overscan = 'on';
        this.#render();
      });
    }
    const keep = new Map<string, RenderedRow>();
    const free: RenderedRow[] = [];
    const wanted = new Set<string>();
    for (let index = first; index < last; index++) wanted.add(this.#rows[index]!.name);
    for (const [name, rendered] of this.#rendered) {
      if (wanted.has(name)) keep.set(name, rendered);
      else free.push(rendered);
    }
    const now = this.#ctx.clock.now();
    for (let index = first; index < last; index++) {
      const row = this.#rows[index]!;
      let rendered = keep.get(row.name);
      if (rendered === undefined) {
        rendered = free.pop() ?? this.#createRow();
        rendered.name = row.name;
        keep.set(row.name, rendered);
        if (rendered.element.parentNode !== this.#body) this.#body.append(rendered.element);
      }
      this.#placeRow(rendered, row, index, now);
    }
    for (const unused of free) unused.element.remove();
    this.#rendered = keep;
  }

  #createRow(): RenderedRow {
    const cells = this.#columns.map((column) => column.create());
    const element = h('div', { class: 'trow', role: 'row' }, ...cells);
    return { element, cells, name: '' };
  }

  #placeRow(rendered: RenderedRow, row: JobRow, index: number, now: number): void {
    const { element } = rendered;
    element.style.transform = `translateY(${index * this.#rowHeight}px)`;
    setAttr(element, 'aria-rowindex', String(index + 2));
    setAttr(element, 'data-job', row.name);
    setAttr(element, 'data-status', row.status);
    const selected = row.name === this.#selected;
    element.classList.toggle('selected', selected);
    const marks = this.#marks(row.name);
    this.#columns.forEach((column, i) => column.update(rendered.cells[i]!, row, now, marks));
  }

  #tick(now: number): void {
    for (const rendered of this.#rendered.values()) {
      const row = this.#ctx.store.snapshot?.byName.get(rendered.name);
      if (row === undefined) continue;
      const marks = this.#marks(row.name);
      this.#columns.forEach((column, i) => {
        if (column.id === 'last' || column.id === 'next' || column.id === 'name')
          column.update(rendered.cells[i]!, row, now, marks);
      });
    }
  }

  #onClick(event: Event): void {
    const target = event.target as HTMLElement;
    const rowElement = target.closest<HTMLElement>('.trow');
    const name = rowElement?.dataset['job'];
    if (name === undefined) return;
    const button = target.closest<HTMLElement>('[data-action]');
    if (button !== null) {
      const action = button.dataset['action'];
      if (action === 'start') void this.#ctx.jobs.start(name);
      else if (action === 'cancel') void this.#ctx.jobs.cancel(name);
      else if (action === 'logs') this.#ctx.nav.openJob(name, 'logs');
      return;
    }
    if (target.closest('a') !== null) {
      this.#selected = name;
      return; // the link's hash opens the drawer
    }
    this.select(name);
    this.#ctx.nav.openJob(name);
  }
}
