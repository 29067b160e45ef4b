// The page header (docs/dashboard.md "Header"): name, version and job-set id, the status pills
// (each one filters the table), the node meter when `/node` answers, the connection indicator
// with the age of the last good poll, the UTC clock, and the page-level buttons.
import { shortJobSetId } from '../model/cluster.js';
import { formatAge, formatPercent, formatUtcClock } from '../model/format.js';
import type { StatusFilter } from '../model/job-query.js';
import { copyText } from './clipboard.js';
import type { AppContext } from './context.js';
import { h, setAttr, setText } from './dom.js';
import type { NodeState } from './store.js';

export class Header {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #pills = new Map<'total' | 'running' | 'failing' | 'ok', HTMLElement>();
  readonly #version = h('span', { class: 'meta-version' });
  readonly #jobSet = h('button', {
    class: 'meta-jobset',
    type: 'button',
    title: 'Job-set id (click to copy)',
  });
  readonly #connection = h('span', { class: 'conn', role: 'status' });
  readonly #connText = h('span', { class: 'conn-text' });
  readonly #clock = h('time', { class: 'clock', 'aria-label': 'UTC time' });
  readonly #meter = h('button', {
    class: 'node-meter',
    type: 'button',
    hidden: true,
    title: 'Node CPU and memory (click for history)',
  });

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    const pill = (
      key: 'total' | 'running' | 'failing' | 'ok',
      label: string,
      filter: StatusFilter,
    ): HTMLElement => {
      const count = h('span', { class: 'pill-count' }, '0');
      const element = h(
        'button',
        {
          class: `pill pill-${key}`,
          type: 'button',
          title: `Show ${filter === 'all' ? 'all jobs' : `${label.toLowerCase()} jobs`}`,
          onclick: () => ctx.prefs.update({ statusFilter: filter }),
        },
        count,
        h('span', { class: 'pill-label' }, label),
      );
      this.#pills.set(key, count);
      return element;
    };
    this.#connection.append(
      h('span', { class: 'conn-dot', 'aria-hidden': 'true' }),
      this.#connText,
    );
    this.#jobSet.addEventListener('click', () => {
      const id = ctx.store.jobSetId;
      if (id !== null)
        void copyText(id).then((copied) =>
          ctx.toast(copied ? 'Job-set id copied' : 'Could not copy'),
        );
    });
    this.#meter.addEventListener('click', () => ctx.nav.openPanel('node'));
    const button = (label: string, text: string, action: string, keys?: string): HTMLElement =>
      h(
        'button',
        {
          class: 'icon-btn',
          type: 'button',
          'aria-label': label,
          title: keys === undefined ? label : `${label} (${keys})`,
          onclick: () => ctx.actions.run(action),
        },
        h('span', { 'aria-hidden': 'true' }, text),
      );
    this.element = h(
      'header',
      { class: 'app-header' },
      h('div', { class: 'brand' }, h('h1', {}, 'yacron2'), this.#version, this.#jobSet),
      h(
        'nav',
        { class: 'pills', 'aria-label': 'Job counts' },
        pill('total', 'Total', 'all'),
        pill('running', 'Running', 'run'),
        pill('failing', 'Failing', 'fail'),
        pill('ok', 'OK', 'ok'),
      ),
      h(
        'div',
        { class: 'header-right' },
        this.#meter,
        this.#connection,
        this.#clock,
        button('Command palette', '⌘', 'palette', 'Ctrl-K'),
        button('Wallboard', '▦', 'wallboard', 'w'),
        button('Settings', '⚙', 'settings', ','),
        h(
          'button',
          {
            class: 'btn btn-small',
            type: 'button',
            title: 'Set or clear the access token',
            onclick: () => ctx.actions.run('token'),
          },
          'Token',
        ),
        button('Keyboard shortcuts', '?', 'help', '?'),
      ),
    );
    ctx.store.on('snapshot', (snapshot) => {
      setText(this.#pills.get('total')!, String(snapshot.counts.total));
      setText(this.#pills.get('running')!, String(snapshot.counts.running));
      setText(this.#pills.get('failing')!, String(snapshot.counts.failing));
      setText(this.#pills.get('ok')!, String(snapshot.counts.ok));
      this.#tick(ctx.clock.now());
    });
    ctx.store.on('connection', () => this.#tick(ctx.clock.now()));
    ctx.store.on('meta', ({ version, jobSetId }) => {
      setText(this.#version, version === null ? '' : `v${version}`);
      setText(this.#jobSet, jobSetId === null ? '' : shortJobSetId(jobSetId));
      setAttr(
        this.#jobSet,
        'aria-label',
        jobSetId === null ? null : `Job-set id ${jobSetId}, copy`,
      );
      setAttr(this.#jobSet, 'title', jobSetId);
    });
    ctx.store.on('node', (node) => this.#renderNode(node));
    ctx.ticker.subscribe((now) => this.#tick(now));
    this.#tick(ctx.clock.now());
  }

  #tick(now: number): void {
    setText(this.#clock, `${formatUtcClock(now)} UTC`);
    setAttr(this.#clock, 'datetime', new Date(now).toISOString());
    const { connection, lastGoodMs } = this.#ctx.store;
    const age = lastGoodMs === null ? null : now - lastGoodMs;
    let state: string;
    let text: string;
    switch (connection.state) {
      case 'connecting':
        state = 'connecting';
        text = 'connecting';
        break;
      case 'live':
        state = 'live';
        text = `live · ${formatAge(age ?? 0)}`;
        break;
      case 'error':
        state = 'lost';
        text = age === null ? 'no signal' : `no signal · ${formatAge(age)}`;
        break;
      case 'unauthorized':
        state = 'lost';
        text = 'token needed';
        break;
    }
    setAttr(this.#connection, 'data-state', state);
    setText(this.#connText, text);
    setAttr(
      this.#connection,
      'title',
      `${connection.state === 'error' ? `${connection.message}. ` : ''}Last good response: ${age === null ? 'never' : `${formatAge(age)} ago`}`,
    );
  }

  #renderNode(node: NodeState): void {
    if (node.kind !== 'present' || node.node.resources === null) {
      this.#meter.hidden = true;
      return;
    }
    const { cpu_percent, mem_percent } = node.node.resources;
    this.#meter.hidden = false;
    this.#meter.replaceChildren(meterBar('CPU', cpu_percent), meterBar('MEM', mem_percent));
    setAttr(
      this.#meter,
      'aria-label',
      `Node ${node.node.node_name}: CPU ${formatPercent(cpu_percent)}, memory ${formatPercent(mem_percent)}; open history`,
    );
  }
}

function meterBar(label: string, percent: number): HTMLElement {
  const fill = h('span', { class: 'meter-fill' });
  fill.style.width = `${Math.max(0, Math.min(100, percent))}%`;
  return h(
    'span',
    { class: 'meter' },
    h('span', { class: 'meter-label' }, label),
    h('span', { class: 'meter-track', 'aria-hidden': 'true' }, fill),
    h('span', { class: 'meter-value' }, formatPercent(percent)),
  );
}
