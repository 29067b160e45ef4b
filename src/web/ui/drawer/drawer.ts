// The job drawer (docs/dashboard.md "Job drawer"): opened by a click, Enter or the deep link
// `#job/<name>[/<tab>]`; a header with status, schedule in English, PIDs, copy-command and the
// cluster keys, then tabs (Logs, History, Resources when served, Schedule, and any tab a later
// feature registers). Only the open tab is mounted; closing disposes it (streams close).
import { describeCron } from '../../model/cron-english.js';
import { STATUS_META, timezoneLabel, type JobRow } from '../../model/job-status.js';
import type { AppContext } from '../context.js';
import { h, setText, uniqueId } from '../dom.js';
import { historyTab } from './history-tab.js';
import { logsTab } from './logs-tab.js';
import { resourcesTab } from './resources-tab.js';
import { scheduleTab } from './schedule-tab.js';
import type { DrawerTab, DrawerTabInstance } from './tab.js';

export class Drawer {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #tabs: DrawerTab[] = [logsTab, historyTab, resourcesTab, scheduleTab];
  readonly #title: HTMLElement;
  readonly #status: HTMLElement;
  readonly #facts: HTMLElement;
  readonly #tablist: HTMLElement;
  readonly #panel: HTMLElement;
  #job: string | null = null;
  #tab: string = 'logs';
  #instance: DrawerTabInstance | null = null;
  #available = new Map<string, boolean>();
  #openToken = 0;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    const titleId = uniqueId('drawer-title');
    this.#title = h('h2', { id: titleId, class: 'drawer-title' });
    this.#status = h('span', { class: 'status' });
    this.#facts = h('div', { class: 'drawer-facts' });
    this.#tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Job views' });
    this.#panel = h('div', { class: 'tab-panel', role: 'tabpanel', tabindex: 0 });
    const close = h(
      'button',
      {
        class: 'icon-btn drawer-close',
        type: 'button',
        'aria-label': 'Close job details',
        onclick: () => ctx.nav.closeTop(),
      },
      h('span', { 'aria-hidden': 'true' }, '✕'),
    );
    this.element = h(
      'aside',
      {
        class: 'drawer',
        role: 'dialog',
        'aria-modal': 'false',
        'aria-labelledby': titleId,
        hidden: true,
      },
      h('div', { class: 'drawer-head' }, this.#status, this.#title, close),
      this.#facts,
      this.#tablist,
      this.#panel,
    );
    this.#tablist.addEventListener('keydown', (event) => this.#onTabKey(event));
    ctx.store.on('snapshot', (snapshot) => {
      if (this.#job === null) return;
      const row = snapshot.byName.get(this.#job);
      this.#renderHead(row);
      this.#instance?.onRow?.(row);
    });
    ctx.ticker.subscribe((now) => this.#instance?.onTick?.(now));
  }

  /** Extension point: a tab for every job (phase 2: state keys, DAG task logs...). */
  registerTab(tab: DrawerTab): void {
    this.#tabs.push(tab);
  }

  get job(): string | null {
    return this.#job;
  }

  open(job: string, tab?: string): void {
    const reopening = this.#job === job;
    this.#job = job;
    this.element.hidden = false;
    document.body.classList.add('drawer-open');
    const row = this.#ctx.store.snapshot?.byName.get(job);
    this.#renderHead(row);
    if (!reopening) this.#available.clear();
    void this.#renderTabs(tab ?? (reopening ? this.#tab : 'logs'));
  }

  close(): void {
    if (this.#job === null) return;
    this.#instance?.dispose();
    this.#instance = null;
    this.#job = null;
    this.#openToken += 1;
    this.element.hidden = true;
    document.body.classList.remove('drawer-open');
  }

  async #renderTabs(wanted: string): Promise<void> {
    const job = this.#job;
    if (job === null) return;
    const token = ++this.#openToken;
    // Tabs whose availability is unknown are asked once per opening, concurrently.
    await Promise.all(
      this.#tabs.map(async (tab) => {
        if (!this.#available.has(tab.id))
          this.#available.set(tab.id, await tab.available(this.#ctx, job).catch(() => false));
      }),
    );
    if (token !== this.#openToken) return;
    const tabs = this.#tabs.filter((tab) => this.#available.get(tab.id) === true);
    const selected = tabs.find((tab) => tab.id === wanted) ?? tabs[0];
    if (selected === undefined) return;
    this.#tablist.replaceChildren(
      ...tabs.map((tab) =>
        h(
          'button',
          {
            class: 'tab',
            type: 'button',
            role: 'tab',
            id: `tab-${tab.id}`,
            'data-tab': tab.id,
            'aria-selected': tab === selected ? 'true' : 'false',
            tabindex: tab === selected ? 0 : -1,
            onclick: () => this.#ctx.nav.openJob(job, tab.id),
          },
          tab.label,
        ),
      ),
    );
    if (this.#instance !== null && this.#tab === selected.id && this.#panel.dataset['job'] === job)
      return;
    this.#instance?.dispose();
    this.#tab = selected.id;
    this.#panel.replaceChildren();
    this.#panel.dataset['job'] = job;
    this.#panel.setAttribute('aria-labelledby', `tab-${selected.id}`);
    this.#instance = selected.mount(this.#panel, this.#ctx, job);
    this.#instance.onRow?.(this.#ctx.store.snapshot?.byName.get(job));
  }

  #onTabKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const tabs = [...this.#tablist.querySelectorAll<HTMLElement>('[role=tab]')];
    const index = tabs.findIndex((tab) => tab.getAttribute('aria-selected') === 'true');
    const next = tabs[(index + (event.key === 'ArrowRight' ? 1 : -1) + tabs.length) % tabs.length];
    if (next === undefined || this.#job === null) return;
    event.preventDefault();
    this.#ctx.nav.openJob(this.#job, next.dataset['tab']);
    requestAnimationFrame(() =>
      this.#tablist.querySelector<HTMLElement>(`[data-tab="${next.dataset['tab']}"]`)?.focus(),
    );
  }

  #renderHead(row: JobRow | undefined): void {
    const job = this.#job ?? '';
    setText(this.#title, job);
    if (row === undefined) {
      this.#status.className = 'status';
      setText(this.#status, 'not configured');
      this.#facts.replaceChildren(
        h('p', { class: 'muted' }, 'This job is not in the configuration (any more).'),
      );
      return;
    }
    const meta = STATUS_META[row.status];
    this.#status.className = `status status-${row.status}`;
    this.#status.replaceChildren(
      h('span', { class: 'glyph', 'aria-hidden': 'true' }, meta.glyph),
      h('span', {}, meta.label),
    );
    const english = describeCron(row.job.schedule);
    const facts: (HTMLElement | string)[] = [
      h(
        'span',
        { class: 'fact' },
        h('code', { class: 'expr' }, row.job.schedule),
        english === null ? '' : ` — ${english}`,
        ` (${timezoneLabel(row.job)})`,
      ),
    ];
    if (row.job.pids.length > 0)
      facts.push(h('span', { class: 'fact' }, `PID ${row.job.pids.join(', ')}`));
    if (row.job.clusterPolicy !== undefined)
      facts.push(h('span', { class: 'fact' }, `policy ${row.job.clusterPolicy}`));
    if (row.job.clusterOwner !== undefined)
      facts.push(h('span', { class: 'fact' }, `owner ${row.job.clusterOwner ?? 'no quorum'}`));
    facts.push(
      h(
        'span',
        { class: 'fact cmd-fact' },
        h('code', {}, row.job.command),
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            onclick: () => void this.#ctx.jobs.copyCommand(job),
          },
          'Copy command',
        ),
      ),
    );
    const key = JSON.stringify([
      row.job.schedule,
      row.job.timezone,
      row.job.pids,
      row.job.clusterPolicy,
      row.job.clusterOwner,
      row.job.command,
    ]);
    if (this.#facts.dataset['key'] === key) return;
    this.#facts.dataset['key'] = key;
    this.#facts.replaceChildren(...facts);
  }
}
