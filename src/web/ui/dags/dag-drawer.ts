// The DAG run drawer (docs/dashboard.md "DAG cards and the run drawer"), opened from a card or
// the deep link `#dag/<name>/<runKey>` (`#dag/<name>` opens the newest run): the run's state,
// kind, logical date and progress (and why it ended early: cancelled, too large); Cancel run while
// it runs; Approve / Reject for every gate waiting; the task graph
// coloured by state (task-graph.ts); the selected task's attempts (a mapped task's instances)
// with its live output (task-log.ts); the run's XCom values. While open it polls the run
// document with the jobs — every round while the run is running, every fifth once it ended —
// and re-reads the XCom listing only when the document changed.
import {
  awaitingGates,
  dagPath,
  dagRunPath,
  instanceItem,
  mappedInstances,
  runProgress,
  STATE_META,
  type DagRunsWire,
  type DagTaskWire,
  type DagWire,
  type RunDocument,
  type TaskEntry,
  type XcomWire,
} from '../../model/dags.js';
import type { AppContext } from '../context.js';
import { dataTable, h, replaceChildren, setText, uniqueId } from '../dom.js';
import type { DagCards } from './dag-cards.js';
import type { DagCommands } from './dag-commands.js';
import { TaskGraph } from './task-graph.js';
import { ATTEMPT_HEAD, attemptRow, when, xcomSection } from './run-tables.js';
import { TaskLog } from './task-log.js';

const ENDED_EVERY = 5;

/** Why the run ended early, in words. */
function endedText(run: RunDocument): string {
  const ended = run.ended;
  if (ended === undefined) return '';
  switch (ended.kind) {
    case 'cancelled':
      return `cancelled by ${ended.by} at ${when(ended.at)}`;
    case 'too-large':
      return `failed: the run document would be ${ended.bytes} bytes, over ${ended.limit}`;
  }
}

export class DagRunDrawer {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #commands: DagCommands;
  readonly #cards: DagCards;
  readonly #status: HTMLElement;
  readonly #title: HTMLElement;
  readonly #facts: HTMLElement;
  readonly #gates: HTMLElement;
  readonly #actions: HTMLElement;
  readonly #graphHost: HTMLElement;
  readonly #task: HTMLElement;
  readonly #xcom: HTMLElement;
  readonly #note: HTMLElement;
  #dag: string | null = null;
  #runKey: string | null = null;
  #tasks: readonly DagTaskWire[] = [];
  #graph: TaskGraph | null = null;
  #graphKey = '';
  #run: RunDocument | null = null;
  #selected: string | null = null;
  #log: { key: string; view: TaskLog } | null = null;
  #taskKey = '';
  #xcomAt = -1;
  #generation = 0;
  #endedRounds = 0;

  constructor(ctx: AppContext, commands: DagCommands, cards: DagCards) {
    this.#ctx = ctx;
    this.#commands = commands;
    this.#cards = cards;
    const titleId = uniqueId('dag-drawer-title');
    this.#status = h('span', { class: 'status' });
    this.#title = h('h2', { id: titleId, class: 'drawer-title' });
    this.#facts = h('div', { class: 'drawer-facts' });
    this.#gates = h('div', { class: 'dag-gates', 'aria-live': 'polite' });
    this.#actions = h('div', { class: 'dag-run-actions' });
    this.#graphHost = h('div', { class: 'dag-graph-host' });
    this.#note = h('p', { class: 'muted', role: 'status' });
    this.#task = h('section', { class: 'dag-task', 'aria-label': 'Selected task' });
    this.#xcom = h('section', { class: 'dag-xcom', 'aria-label': 'XCom values' });
    this.element = h(
      'aside',
      {
        class: 'dag-drawer',
        role: 'dialog',
        'aria-modal': 'false',
        'aria-labelledby': titleId,
        hidden: true,
      },
      h(
        'div',
        { class: 'drawer-head' },
        this.#status,
        this.#title,
        h(
          'button',
          {
            class: 'icon-btn drawer-close',
            type: 'button',
            'aria-label': 'Close the DAG run',
            onclick: () => ctx.nav.closeTop(),
          },
          h('span', { 'aria-hidden': 'true' }, '✕'),
        ),
      ),
      this.#facts,
      this.#actions,
      h(
        'div',
        { class: 'dag-drawer-body', tabindex: '0', role: 'region', 'aria-label': 'Run details' },
        this.#note,
        this.#gates,
        this.#graphHost,
        this.#task,
        this.#xcom,
      ),
    );
    ctx.poller.addSource({
      id: 'dag-run',
      every: 1,
      active: () =>
        this.#runKey !== null &&
        (this.#run?.state === 'running' || ++this.#endedRounds % ENDED_EVERY === 0),
      poll: (_api, signal) => this.#load(signal),
    });
  }

  get isOpen(): boolean {
    return this.#dag !== null;
  }

  get runKey(): string | null {
    return this.#runKey;
  }

  open(dag: string, runKey: string | null): void {
    if (this.#dag === dag && this.#runKey === runKey && runKey !== null) return;
    this.#reset();
    const generation = ++this.#generation;
    this.#dag = dag;
    this.#runKey = runKey;
    this.element.hidden = false;
    setText(this.#title, runKey === null ? dag : `${dag} · ${runKey}`);
    setText(this.#note, 'Loading…');
    void (async () => {
      try {
        const tasks = await this.#dagTasks(dag);
        if (generation !== this.#generation) return;
        if (tasks === null) {
          setText(this.#note, `There is no DAG named ${dag} on this daemon.`);
          return;
        }
        this.#tasks = tasks;
        if (runKey === null) {
          const listing = await this.#ctx.api.optionalJson<DagRunsWire>(
            `${dagPath(dag, 'runs')}?limit=1`,
          );
          if (generation !== this.#generation) return;
          const newest = listing?.runs[0];
          if (newest === undefined) {
            this.#renderNoRun(dag);
            return;
          }
          this.#ctx.nav.openDagRun(dag, newest.runKey);
          return;
        }
        await this.#load();
      } catch (error) {
        if (generation === this.#generation)
          setText(this.#note, error instanceof Error ? error.message : String(error));
      }
    })();
  }

  close(): void {
    if (this.#dag === null) return;
    this.#reset();
    this.#generation += 1;
    this.#dag = null;
    this.#runKey = null;
    this.element.hidden = true;
  }

  #reset(): void {
    this.#log?.view.dispose();
    this.#log = null;
    this.#run = null;
    this.#selected = null;
    this.#taskKey = '';
    this.#xcomAt = -1;
    this.#endedRounds = 0;
    this.#status.className = 'status';
    this.#status.replaceChildren();
    for (const part of [this.#facts, this.#actions, this.#gates, this.#task, this.#xcom])
      part.replaceChildren();
  }

  async #dagTasks(dag: string): Promise<readonly DagTaskWire[] | null> {
    let dags = this.#ctx.store.dags;
    if (!dags.some((candidate) => candidate.name === dag))
      dags = (await this.#ctx.api.optionalJson<DagWire[]>('/dags')) ?? [];
    return dags.find((candidate) => candidate.name === dag)?.tasks ?? null;
  }

  #renderNoRun(dag: string): void {
    setText(this.#note, `${dag} has no runs in the store yet.`);
    this.#gates.replaceChildren(
      h(
        'button',
        { class: 'btn', type: 'button', onclick: () => void this.#cards.triggerAndOpen(dag) },
        'Trigger a run',
      ),
    );
  }

  async #load(signal?: AbortSignal): Promise<void> {
    const dag = this.#dag;
    const runKey = this.#runKey;
    if (dag === null || runKey === null) return;
    const generation = this.#generation;
    const run = await this.#ctx.api.optionalJson<RunDocument>(dagRunPath(dag, runKey), signal);
    if (generation !== this.#generation) return;
    if (run === null) {
      setText(
        this.#note,
        `Run ${runKey} of ${dag} is not in the store (pruned, or never created).`,
      );
      return;
    }
    setText(this.#note, '');
    const changed =
      this.#run === null || this.#run.updatedAt !== run.updatedAt || this.#run.state !== run.state;
    this.#run = run;
    if (!changed) return;
    this.#render(run);
    if (run.updatedAt !== this.#xcomAt) {
      this.#xcomAt = run.updatedAt;
      void this.#loadXcom(dag, runKey, generation);
    }
  }

  #render(run: RunDocument): void {
    const meta = STATE_META[run.state];
    this.#status.className = `status status-${meta.tone}`;
    this.#status.dataset['state'] = run.state;
    this.#status.replaceChildren(
      h('span', { class: 'glyph', 'aria-hidden': 'true' }, meta.glyph),
      h('span', {}, meta.label),
    );
    const progress = runProgress(run);
    replaceChildren(
      this.#facts,
      h('span', { class: 'fact' }, `${run.kind} run`),
      run.logicalDate === null
        ? null
        : h('span', { class: 'fact' }, `logical date ${run.logicalDate}`),
      h('span', { class: 'fact' }, `created ${when(run.createdAt)}`),
      h('span', { class: 'fact' }, `updated ${when(run.updatedAt)}`),
      h('span', { class: 'fact dag-progress' }, `${progress.done}/${progress.total} tasks done`),
      run.ended === undefined ? null : h('span', { class: 'fact dag-ended' }, endedText(run)),
      this.#runPicker(run),
    );
    this.#renderActions(run);
    const graphKey = JSON.stringify([run.dag, this.#tasks]);
    if (this.#graph === null || this.#graphKey !== graphKey) {
      this.#graph = new TaskGraph(this.#tasks, (id) => this.#select(id));
      this.#graphKey = graphKey;
      this.#graphHost.replaceChildren(this.#graph.element);
    }
    this.#graph.update(run);
    this.#graph.select(this.#selected);
    this.#renderGates(run);
    if (this.#selected === null) {
      const first =
        awaitingGates(run)[0] ??
        this.#tasks.find((task) => run.tasks[task.id]?.state === 'running')?.id;
      if (first !== undefined) this.#select(first.split('#')[0]!);
    } else this.#renderTask(run);
  }

  #runPicker(run: RunDocument): HTMLElement | null {
    const runs = this.#cards.recentRuns(run.dag);
    if (runs.length < 2) return null;
    const id = uniqueId('run-pick');
    const select = h(
      'select',
      { id, class: 'select' },
      ...runs.map((summary) =>
        h(
          'option',
          { value: summary.runKey, selected: summary.runKey === run.runKey },
          `${summary.runKey} · ${STATE_META[summary.state].label}`,
        ),
      ),
    );
    select.addEventListener('change', () => this.#ctx.nav.openDagRun(run.dag, select.value));
    return h('span', { class: 'fact' }, h('label', { for: id }, 'Run '), select);
  }

  #renderActions(run: RunDocument): void {
    if (run.state !== 'running') {
      this.#actions.replaceChildren();
      return;
    }
    // Kept across the polls of one run, so keyboard focus stays on it.
    if (this.#actions.dataset['run'] === run.runKey && this.#actions.firstChild !== null) return;
    this.#actions.dataset['run'] = run.runKey;
    this.#actions.replaceChildren(
      h(
        'button',
        {
          class: 'btn btn-small btn-danger',
          type: 'button',
          'aria-label': `Cancel run ${run.runKey}`,
          onclick: (event) => void this.#cancel(event, run.dag, run.runKey),
        },
        'Cancel run',
      ),
    );
  }

  async #cancel(event: Event, dag: string, runKey: string): Promise<void> {
    const button = event.currentTarget;
    if (button instanceof HTMLButtonElement) button.disabled = true;
    if (await this.#commands.cancelRun(dag, runKey)) await this.#load();
    else if (button instanceof HTMLButtonElement) button.disabled = false;
  }

  #renderGates(run: RunDocument): void {
    const button = (key: string, decision: 'approve' | 'reject'): HTMLElement =>
      h(
        'button',
        {
          class: decision === 'approve' ? 'btn btn-small btn-primary' : 'btn btn-small',
          type: 'button',
          'aria-label': `${decision === 'approve' ? 'Approve' : 'Reject'} ${key}`,
          onclick: (event) => void this.#decide(event, run, key, decision),
        },
        decision === 'approve' ? 'Approve' : 'Reject',
      );
    this.#gates.replaceChildren(
      ...awaitingGates(run).map((key) =>
        h(
          'div',
          { class: 'dag-gate', 'data-gate': key },
          h(
            'span',
            {},
            h('span', { 'aria-hidden': 'true' }, '‖ '),
            `${key} is waiting for approval`,
          ),
          button(key, 'approve'),
          button(key, 'reject'),
        ),
      ),
    );
  }

  async #decide(
    event: Event,
    run: RunDocument,
    key: string,
    decision: 'approve' | 'reject',
  ): Promise<void> {
    const button = event.currentTarget;
    if (button instanceof HTMLButtonElement) button.disabled = true;
    if (await this.#commands.decide(run.dag, run.runKey, key, decision)) await this.#load();
    else if (button instanceof HTMLButtonElement) button.disabled = false;
  }

  #select(id: string): void {
    this.#selected = id;
    this.#taskKey = '';
    this.#graph?.select(id);
    if (this.#run !== null) this.#renderTask(this.#run);
  }

  #renderTask(run: RunDocument): void {
    const id = this.#selected;
    const task = this.#tasks.find((candidate) => candidate.id === id);
    if (id === null || task === undefined) return;
    const entries: [string, TaskEntry][] = task.mapped
      ? mappedInstances(run, id).map((entry) => [`${id}#${entry.mapIndex}`, entry])
      : run.tasks[id] === undefined
        ? []
        : [[id, run.tasks[id]]];
    const placeholder = task.mapped ? run.tasks[id] : undefined;
    // The instance whose output to follow: a running one, else the last.
    const logEntry =
      entries.find(([, entry]) => entry.state === 'running') ?? entries[entries.length - 1];
    const key = JSON.stringify([id, entries, placeholder?.state]);
    if (key !== this.#taskKey) {
      this.#taskKey = key;
      const caption = `${id} · ${task.type}${task.mapped ? ' · mapped' : ''} · ${task.triggerRule} · ${task.retries} retr${task.retries === 1 ? 'y' : 'ies'}`;
      this.#task.replaceChildren(
        h('h3', {}, `Task ${id}`),
        entries.length === 0
          ? h(
              'p',
              { class: 'muted' },
              task.mapped && placeholder !== undefined
                ? `Not expanded yet (${STATE_META[placeholder.state].label}).`
                : 'This task is not part of this run (added to the DAG after the run was created).',
            )
          : dataTable(
              caption,
              ATTEMPT_HEAD,
              entries.map(([k, entry]) => attemptRow(k, entry, instanceItem(run, entry))),
              (index) => ({ 'data-taskkey': entries[index]![0] }),
            ),
      );
      if (this.#log !== null && this.#log.key !== logEntry?.[0]) {
        this.#log.view.dispose();
        this.#log = null;
      }
    }
    if (logEntry === undefined || task.type === 'approval') return;
    const [logKey, entry] = logEntry;
    if (this.#log === null) {
      this.#log = { key: logKey, view: new TaskLog(this.#ctx, run.dag, run.runKey, logKey) };
    }
    if (!this.#task.contains(this.#log.view.element)) this.#task.append(this.#log.view.element);
    this.#log.view.onAttempt(entry.attempt, entry.state === 'running');
  }

  async #loadXcom(dag: string, runKey: string, generation: number): Promise<void> {
    let wire: XcomWire | null;
    try {
      wire = await this.#ctx.api.optionalJson<XcomWire>(dagRunPath(dag, runKey, 'xcom'));
    } catch {
      return; // The next change of the run asks again.
    }
    if (generation !== this.#generation || wire === null) return;
    this.#xcom.replaceChildren(...xcomSection(wire));
  }
}
