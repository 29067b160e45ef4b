// Wallboard mode (`w`, the palette, or `#tv`; docs/dashboard.md "Wallboard"): full-screen tiles,
// failing first, then running, then the rest, each with glyph, name, countdown or age and its
// sparkline; a footer tally and clock. When no good poll arrived for 15 s (or 3 intervals, if
// longer) the grid dims under NO SIGNAL (the API is unreachable) or STALE DATA.
import { formatAge, formatCountdown, formatUtcClock } from '../model/format.js';
import { STATUS_META, type JobRow } from '../model/job-status.js';
import type { AppContext } from './context.js';
import { h, setText } from './dom.js';
import type { Snapshot } from './store.js';
import { renderSparkline, sparkSummary } from './table/sparkline.js';

const MAX_TILES = 400;
const TILE_ORDER: Readonly<Record<string, number>> = { failed: 0, unknown: 1, running: 2 };

/** Stale when the last good poll is older than 15 s or three intervals (whichever is longer). */
export function isStale(nowMs: number, lastGoodMs: number | null, refreshMs: number): boolean {
  if (lastGoodMs === null) return true;
  return nowMs - lastGoodMs > Math.max(15_000, 3 * (refreshMs || 5000));
}

export class Wallboard {
  readonly element: HTMLElement;
  readonly #ctx: AppContext;
  readonly #grid: HTMLElement;
  readonly #tally: HTMLElement;
  readonly #clock: HTMLElement;
  readonly #banner: HTMLElement;
  #tiles: { row: JobRow; countdown: HTMLElement }[] = [];

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#grid = h('div', { class: 'tv-grid' });
    this.#tally = h('span', { class: 'tv-tally' });
    this.#clock = h('span', { class: 'tv-clock' });
    this.#banner = h('div', { class: 'tv-banner', role: 'alert', hidden: true });
    this.element = h(
      'section',
      { class: 'wallboard', hidden: true, 'aria-label': 'Wallboard' },
      this.#banner,
      this.#grid,
      h(
        'footer',
        { class: 'tv-footer' },
        this.#tally,
        h(
          'button',
          { class: 'btn btn-small', type: 'button', onclick: () => ctx.nav.closeTop() },
          'Exit wallboard (Esc)',
        ),
        this.#clock,
      ),
    );
    this.#grid.addEventListener('click', (event) => {
      const tile = (event.target as HTMLElement).closest<HTMLElement>('[data-job]');
      if (tile !== null) {
        this.close();
        ctx.nav.openJob(tile.dataset['job']!);
      }
    });
    ctx.store.on('snapshot', (snapshot) => {
      if (!this.element.hidden) this.#render(snapshot);
    });
    ctx.ticker.subscribe((now) => {
      if (!this.element.hidden) this.#tick(now);
    });
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  open(): void {
    this.element.hidden = false;
    document.body.classList.add('tv-mode');
    const snapshot = this.#ctx.store.snapshot;
    if (snapshot !== null) this.#render(snapshot);
    this.#tick(this.#ctx.clock.now());
    this.element.querySelector<HTMLElement>('.tv-footer button')?.focus();
  }

  close(): void {
    this.element.hidden = true;
    document.body.classList.remove('tv-mode');
  }

  #render(snapshot: Snapshot): void {
    const rows = [...snapshot.rows].sort(
      (a, b) =>
        (TILE_ORDER[a.status] ?? 3) - (TILE_ORDER[b.status] ?? 3) || (a.name < b.name ? -1 : 1),
    );
    this.#tiles = [];
    const tiles: HTMLElement[] = rows.slice(0, MAX_TILES).map((row) => {
      const countdown = h('span', { class: 'tile-when' });
      this.#tiles.push({ row, countdown });
      return h(
        'button',
        {
          class: `tile tile-${row.status}`,
          type: 'button',
          'data-job': row.name,
          'aria-label': `${row.name}: ${STATUS_META[row.status].label}`,
        },
        h('span', { class: 'tile-glyph', 'aria-hidden': 'true' }, STATUS_META[row.status].glyph),
        h('span', { class: 'tile-name' }, row.name),
        countdown,
        renderSparkline(row.job.history, sparkSummary(row.job.history)),
      );
    });
    if (rows.length > MAX_TILES)
      tiles.push(h('p', { class: 'tile-more' }, `+${rows.length - MAX_TILES} more jobs`));
    this.#grid.replaceChildren(...tiles);
    const { counts } = snapshot;
    setText(
      this.#tally,
      `${counts.total} jobs · ${counts.running} running · ${counts.failing} failing · ${counts.ok} ok`,
    );
    this.#tick(this.#ctx.clock.now());
  }

  #tick(now: number): void {
    setText(this.#clock, `${formatUtcClock(now)} UTC`);
    for (const { row, countdown } of this.#tiles) {
      const text = row.job.running
        ? 'running'
        : row.nextFireMs !== null
          ? formatCountdown(row.nextFireMs - now)
          : row.lastFinishedMs !== null
            ? `${formatAge(now - row.lastFinishedMs)} ago`
            : '—';
      setText(countdown, text);
    }
    const { connection, lastGoodMs } = this.#ctx.store;
    const stale = isStale(now, lastGoodMs, this.#ctx.prefs.value.refreshMs);
    this.element.classList.toggle('stale', stale);
    this.#banner.hidden = !stale;
    setText(
      this.#banner,
      connection.state === 'live' && lastGoodMs !== null
        ? `STALE DATA — last update ${formatAge(now - lastGoodMs)} ago`
        : `NO SIGNAL — ${lastGoodMs === null ? 'no data yet' : `last update ${formatAge(now - lastGoodMs)} ago`}`,
    );
  }
}
