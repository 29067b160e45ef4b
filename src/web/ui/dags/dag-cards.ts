// The DAG cards above the job table (docs/dashboard.md "DAG cards and the run drawer"): one card
// per DAG from `GET /dags` — enabled, task count, the schedule in English and the next fire, the
// latest runs' states (each opens its run drawer), the run tally — with Trigger, Backfill (a
// UTC date range) and Latest run. Registers the `/dags` poll: every round while the daemon lists
// DAGs, every 15th round while it lists none; a DAG's recent runs (`/dags/{n}/runs?limit=8`) are
// re-read only when its latest run changed. Adds the palette's DAG actions.
// Must not: poll `/dags` every round on a daemon without DAGs, or re-read every DAG's runs on
// every poll.
import {
  dagCard,
  dagPath,
  STATE_META,
  type DagRunSummaryWire,
  type DagRunsWire,
  type DagWire,
} from '../../model/dags.js';
import { formatAge, formatCountdown, formatUtc } from '../../model/format.js';
import type { AppContext } from '../context.js';
import { h, replaceChildren, setText, uniqueId } from '../dom.js';
import type { DagCommands } from './dag-commands.js';

const OFF_EVERY = 15;
export const RECENT_RUNS = 8;

/** What makes a DAG's recent-runs list worth re-reading. */
function runsKey(dag: DagWire): string {
  const latest = dag.latestRun;
  return latest === undefined
    ? ''
    : `${latest.runKey} ${latest.state} ${latest.updatedAt} ${dag.totalRuns ?? 0}`;
}

interface CardParts {
  readonly element: HTMLElement;
  readonly schedule: HTMLElement;
  readonly next: HTMLElement;
  readonly runs: HTMLElement;
  readonly tally: HTMLElement;
  readonly latest: HTMLButtonElement;
  readonly backfill: HTMLElement;
  nextFireMs: number | null;
  timezone: string;
}

export class DagCards {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #commands: DagCommands;
  readonly #grid: HTMLElement;
  readonly #cards = new Map<string, CardParts>();
  readonly #recent = new Map<string, { key: string; runs: readonly DagRunSummaryWire[] }>();
  #actionsOff: (() => void)[] = [];

  constructor(ctx: AppContext, commands: DagCommands) {
    this.#ctx = ctx;
    this.#commands = commands;
    const titleId = uniqueId('dags-title');
    this.#grid = h('div', { class: 'dag-grid' });
    this.element = h(
      'section',
      { class: 'dag-cards', hidden: true, 'aria-labelledby': titleId },
      h('h2', { id: titleId, class: 'dag-cards-title' }, 'DAGs'),
      this.#grid,
    );
    let asked = false;
    let offRounds = 0;
    ctx.poller.addSource({
      id: 'dags',
      every: 1,
      active: () => !asked || ctx.store.dags.length > 0 || ++offRounds % OFF_EVERY === 0,
      poll: async (api, signal) => {
        const dags = (await api.optionalJson<DagWire[]>('/dags', signal)) ?? [];
        asked = true;
        await Promise.all(dags.map((dag) => this.#readRecent(dag, signal)));
        ctx.store.setDags(dags);
      },
    });
    ctx.store.on('dags', (dags) => this.#render(dags));
    ctx.ticker.subscribe((now) => {
      for (const card of this.#cards.values()) this.#renderNext(card, now);
    });
  }

  /** The recent runs the card shows (newest first), as last read. */
  recentRuns(dag: string): readonly DagRunSummaryWire[] {
    return this.#recent.get(dag)?.runs ?? [];
  }

  async #readRecent(dag: DagWire, signal: AbortSignal): Promise<void> {
    const key = runsKey(dag);
    if (this.#recent.get(dag.name)?.key === key) return;
    if (key === '') {
      this.#recent.set(dag.name, { key, runs: [] });
      return;
    }
    try {
      const listing = await this.#ctx.api.optionalJson<DagRunsWire>(
        `${dagPath(dag.name, 'runs')}?limit=${RECENT_RUNS}`,
        signal,
      );
      this.#recent.set(dag.name, { key, runs: listing?.runs ?? [] });
    } catch {
      // Keep the previous list; the next change of the latest run asks again.
    }
  }

  #render(dags: readonly DagWire[]): void {
    this.element.hidden = dags.length === 0;
    const now = this.#ctx.clock.now();
    const names = new Set(dags.map((dag) => dag.name));
    for (const [name, card] of this.#cards) {
      if (!names.has(name)) {
        card.element.remove();
        this.#cards.delete(name);
      }
    }
    dags.forEach((dag, index) => {
      let card = this.#cards.get(dag.name);
      if (card === undefined) {
        card = this.#build(dag);
        this.#cards.set(dag.name, card);
      }
      if (this.#grid.children[index] !== card.element)
        this.#grid.insertBefore(card.element, this.#grid.children[index] ?? null);
      this.#update(card, dag, now);
    });
    this.#registerActions(dags);
  }

  #build(dag: DagWire): CardParts {
    const titleId = uniqueId('dag');
    const schedule = h('p', { class: 'dag-schedule' });
    const next = h('p', { class: 'dag-next' });
    const runs = h('ul', { class: 'dag-runs', 'aria-label': `Latest runs of ${dag.name}` });
    const tally = h('p', { class: 'dag-tally' });
    const latest = h(
      'button',
      {
        class: 'btn btn-small',
        type: 'button',
        onclick: () => this.#ctx.nav.openDagRun(dag.name, null),
      },
      'Latest run',
    );
    const backfill = this.#backfillForm(dag.name);
    const element = h(
      'article',
      { class: 'dag-card', 'data-dag': dag.name, 'aria-labelledby': titleId },
      h('h3', { id: titleId, class: 'dag-name' }, dag.name),
      schedule,
      next,
      runs,
      tally,
      h(
        'div',
        { class: 'dag-actions' },
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            'aria-label': `Trigger a run of ${dag.name}`,
            onclick: () => void this.triggerAndOpen(dag.name),
          },
          'Trigger',
        ),
        latest,
        backfill,
      ),
    );
    return {
      element,
      schedule,
      next,
      runs,
      tally,
      latest,
      backfill,
      nextFireMs: null,
      timezone: 'UTC',
    };
  }

  /** Triggers a run and opens its drawer (the card's button and the palette). */
  async triggerAndOpen(dag: string): Promise<void> {
    const runKey = await this.#commands.trigger(dag);
    if (runKey !== null) this.#ctx.nav.openDagRun(dag, runKey);
  }

  #backfillForm(dag: string): HTMLElement {
    const fromId = uniqueId('bf-from');
    const toId = uniqueId('bf-to');
    const from = h('input', { id: fromId, type: 'date', required: true });
    const to = h('input', { id: toId, type: 'date', required: true });
    const error = h('p', { class: 'dag-error', role: 'status' });
    const submit = h('button', { class: 'btn btn-small', type: 'submit' }, 'Create runs');
    const form = h(
      'form',
      { class: 'dag-backfill' },
      h('label', { for: fromId }, 'From (UTC day)'),
      from,
      h('label', { for: toId }, 'To (UTC day, inclusive)'),
      to,
      submit,
      error,
    );
    const details = h(
      'details',
      { class: 'menu dag-backfill-menu' },
      h('summary', { class: 'btn btn-small', 'aria-label': `Backfill ${dag}` }, 'Backfill'),
      h('div', { class: 'menu-body' }, form),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      submit.disabled = true;
      void this.#commands.backfill(dag, from.value, to.value).then((problem) => {
        submit.disabled = false;
        setText(error, problem ?? '');
        if (problem === null) details.open = false;
      });
    });
    return details;
  }

  /** Opens a card's backfill form and focuses its first field (the palette's Backfill). */
  openBackfill(dag: string): void {
    const card = this.#cards.get(dag);
    if (card === undefined || card.backfill.hidden) return;
    (card.backfill as HTMLDetailsElement).open = true;
    card.element.scrollIntoView?.({ block: 'nearest' });
    card.backfill.querySelector('input')?.focus();
  }

  #update(card: CardParts, dag: DagWire, now: number): void {
    const view = dagCard(dag, now);
    card.element.dataset['enabled'] = String(view.enabled);
    card.element.dataset['state'] = view.latest?.state ?? 'none';
    replaceChildren(
      card.schedule,
      ...(view.schedule === null
        ? ['Manual runs only']
        : [h('code', {}, view.schedule), view.english === null ? '' : ` — ${view.english}`]),
      ` · ${view.taskCount} task${view.taskCount === 1 ? '' : 's'}`,
      view.enabled ? '' : ' · ',
      view.enabled ? null : h('span', { class: 'chip chip-warn' }, 'disabled'),
    );
    card.nextFireMs = view.nextFireMs;
    card.timezone = view.timezone;
    this.#renderNext(card, now);
    const runs = this.recentRuns(dag.name);
    const shown = runs.length > 0 ? runs : view.latest === null ? [] : [view.latest];
    card.runs.replaceChildren(
      ...(shown.length === 0
        ? [h('li', { class: 'muted' }, 'No runs yet')]
        : [...shown].reverse().map((run) => {
            const meta = STATE_META[run.state];
            return h(
              'li',
              {},
              h(
                'a',
                {
                  class: `dag-run status status-${meta.tone}`,
                  href: `#dag/${encodeURIComponent(dag.name)}/${encodeURIComponent(run.runKey)}`,
                  'data-run': run.runKey,
                  'data-state': run.state,
                  title: `${run.runKey} · ${run.kind} · ${meta.label} · created ${formatAge(now - run.createdAt * 1000)} ago`,
                  'aria-label': `Run ${run.runKey}: ${meta.label}`,
                },
                h('span', { class: 'glyph', 'aria-hidden': 'true' }, meta.glyph),
              ),
            );
          })),
    );
    const latest = view.latest;
    setText(
      card.tally,
      latest === null
        ? 'No runs in the store'
        : `Latest ${STATE_META[latest.state].label} (${latest.kind}, ${formatAge(now - latest.updatedAt * 1000)} ago) · ${view.tally}`,
    );
    card.latest.disabled = latest === null;
    card.backfill.hidden = !dag.scheduled;
  }

  #renderNext(card: CardParts, now: number): void {
    setText(
      card.next,
      card.nextFireMs === null
        ? ''
        : `Next run ${formatCountdown(card.nextFireMs - now)} (${formatUtc(card.nextFireMs)})`,
    );
    card.next.hidden = card.nextFireMs === null;
    card.next.title =
      card.timezone === 'local'
        ? 'The schedule runs on the daemon’s local time; the next run is computed in this browser’s zone, which may differ.'
        : `The schedule is read in ${card.timezone}; the time shown is UTC.`;
  }

  #registerActions(dags: readonly DagWire[]): void {
    for (const off of this.#actionsOff) off();
    const { actions, nav } = this.#ctx;
    this.#actionsOff = dags.flatMap((dag) => [
      actions.add({
        id: `dag-trigger:${dag.name}`,
        label: `Trigger DAG ${dag.name}`,
        run: () => void this.triggerAndOpen(dag.name),
      }),
      actions.add({
        id: `dag-latest:${dag.name}`,
        label: `Open the latest run of DAG ${dag.name}`,
        run: () => nav.openDagRun(dag.name, null),
      }),
      ...(dag.scheduled
        ? [
            actions.add({
              id: `dag-backfill:${dag.name}`,
              label: `Backfill DAG ${dag.name}`,
              run: () => this.openBackfill(dag.name),
            }),
          ]
        : []),
    ]);
  }
}
