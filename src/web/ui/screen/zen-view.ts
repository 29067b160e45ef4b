// The wallboard's zen screensaver on the page (docs/dashboard.md "Zen screensaver"): a layer
// inside the wallboard that covers its tiles when model/zen.ts says so, with an all-clear title,
// the armed jobs, the UTC clock and the next fire, and a field of one dot per enabled job that
// lights up as its job fires. Time comes from the page's clock (the ticker), so a test moves it
// with page.clock; a poll, a tick or any input re-decides.
// Must not: consume the waking input (Esc still leaves the wallboard, a click still lands).
import { formatCountdown, formatUtcClock } from '../../model/format.js';
import {
  ZEN_BLOCKED,
  ZEN_MAX_DOTS,
  zenDotPosition,
  zenDue,
  zenInput,
  zenStep,
  zenSummary,
  type ZenState,
} from '../../model/zen.js';
import { currentSummary } from '../cluster-bar.js';
import type { AppContext } from '../context.js';
import { h, setText } from '../dom.js';
import { isStale, type Wallboard } from '../wallboard.js';

const INPUTS = ['keydown', 'pointermove', 'pointerdown', 'wheel', 'touchstart'] as const;

export class ZenScreensaver {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #wallboard: Wallboard;
  readonly #field: HTMLElement;
  readonly #summary: HTMLElement;
  #state: ZenState = ZEN_BLOCKED;
  /** The dots by job name, rebuilt when the set of enabled jobs changes. */
  #dots = new Map<string, HTMLElement>();
  #dotsKey = '';

  constructor(ctx: AppContext, wallboard: Wallboard) {
    this.#ctx = ctx;
    this.#wallboard = wallboard;
    this.#field = h('div', { class: 'zen-field', 'aria-hidden': 'true' });
    this.#summary = h('p', { class: 'zen-summary' });
    this.element = h(
      'section',
      { class: 'zen', hidden: true, 'aria-label': 'Screensaver' },
      this.#field,
      h('p', { class: 'zen-title' }, 'ALL CLEAR'),
      this.#summary,
      h('p', { class: 'zen-hint' }, 'Move the pointer or press a key to wake · Esc leaves'),
    );
    wallboard.element.append(this.element);
    for (const type of INPUTS)
      document.addEventListener(type, () => this.#onInput(), { capture: true, passive: true });
    ctx.ticker.subscribe((now) => this.#decide(now));
    ctx.store.on('snapshot', () => this.#decide(ctx.clock.now()));
    ctx.store.on('cluster', () => this.#decide(ctx.clock.now()));
    ctx.prefs.subscribe(() => this.#decide(ctx.clock.now()));
  }

  get isOn(): boolean {
    return this.#state.kind === 'on';
  }

  #onInput(): void {
    if (this.#state.kind === 'blocked') return;
    this.#state = zenInput(this.#state, this.#ctx.clock.now());
    this.#show();
  }

  #decide(now: number): void {
    if (this.#state.kind === 'blocked' && !this.#wallboard.isOpen) return;
    const { store, prefs } = this.#ctx;
    const next = zenStep(
      this.#state,
      {
        enabled: prefs.value.zen,
        wallboardOpen: this.#wallboard.isOpen,
        stale: isStale(now, store.lastGoodMs, prefs.value.refreshMs),
        failing: store.snapshot?.counts.failing ?? 0,
        clusterAlert: (currentSummary(store)?.alerts.length ?? 0) > 0,
        idleMs: prefs.value.zenIdleMs,
      },
      now,
    );
    this.#state = next;
    this.#show();
    if (next.kind === 'on') this.#render(now);
  }

  #show(): void {
    const on = this.#state.kind === 'on';
    if (this.element.hidden === on) this.element.hidden = !on;
    this.#wallboard.element.classList.toggle('zen-on', on);
  }

  #render(now: number): void {
    const rows = this.#ctx.store.snapshot?.rows ?? [];
    const jobs = rows.map((row) => ({
      name: row.name,
      enabled: row.job.enabled,
      nextFireMs: row.nextFireMs,
    }));
    const armed = jobs.filter((job) => job.enabled).slice(0, ZEN_MAX_DOTS);
    const key = armed.map((job) => job.name).join('\n');
    if (key !== this.#dotsKey) {
      this.#dotsKey = key;
      this.#dots = new Map(
        armed.map((job) => {
          const dot = h('span', { class: 'zen-dot' });
          const { x, y } = zenDotPosition(job.name);
          dot.style.left = `${x}%`;
          dot.style.top = `${y}%`;
          return [job.name, dot];
        }),
      );
      this.#field.replaceChildren(...this.#dots.values());
    }
    const reduced = document.documentElement.dataset['motion'] === 'reduce';
    for (const job of armed) {
      const due = !reduced && zenDue(job.nextFireMs, now);
      const dot = this.#dots.get(job.name);
      if (dot !== undefined && dot.classList.contains('due') !== due)
        dot.classList.toggle('due', due);
    }
    const summary = zenSummary(jobs, now);
    setText(
      this.#summary,
      `${summary.armed} job${summary.armed === 1 ? '' : 's'} armed · ${formatUtcClock(now)} UTC` +
        (summary.next === null
          ? ''
          : ` · next ${summary.next.name} ${formatCountdown(summary.next.inMs)}`),
    );
  }
}
