// The panel registry and its host (docs/dashboard.md "Extending"): every tool view (timeline,
// mitigate console, multi-tail, heatmap, cron sandbox, node history, settings, shortcuts) is a
// PanelDefinition shown one at a time in a modal dialog, with a palette action to open it.
// Phase-2 views (cluster panel, fleet matrix, DAG cards, state inspector) register here too.
import type { AppContext, PanelOpenOptions } from '../context.js';
import { h, setText, uniqueId } from '../dom.js';
import type { Snapshot } from '../store.js';

export interface PanelInstance {
  onSnapshot?(snapshot: Snapshot): void;
  onTick?(nowMs: number): void;
  dispose(): void;
}

export interface PanelDefinition {
  readonly id: string;
  readonly title: string;
  /** Shortcut shown in the palette (the key itself is bound in shortcuts.ts). */
  readonly keys?: string;
  /** Wide panels get the full width (multi-tail, heatmap). */
  readonly wide?: boolean;
  mount(body: HTMLElement, ctx: AppContext, options: PanelOpenOptions): PanelInstance;
}

export class PanelHost {
  readonly element: HTMLDialogElement;
  readonly #ctx: AppContext;
  readonly #panels = new Map<string, PanelDefinition>();
  readonly #title: HTMLElement;
  readonly #body: HTMLElement;
  #open: { id: string; instance: PanelInstance } | null = null;
  #returnFocus: HTMLElement | null = null;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    const titleId = uniqueId('panel-title');
    this.#title = h('h2', { id: titleId });
    this.#body = h('div', { class: 'sheet-body' });
    this.element = h(
      'dialog',
      { class: 'sheet', 'aria-labelledby': titleId },
      h(
        'div',
        { class: 'sheet-head' },
        this.#title,
        h(
          'button',
          {
            class: 'icon-btn',
            type: 'button',
            'aria-label': 'Close panel',
            onclick: () => this.close(),
          },
          h('span', { 'aria-hidden': 'true' }, '✕'),
        ),
      ),
      this.#body,
    );
    // Esc (the dialog's cancel) and any other way the dialog closes dispose the panel.
    this.element.addEventListener('close', () => this.#disposeOpen());
    ctx.store.on('snapshot', (snapshot) => this.#open?.instance.onSnapshot?.(snapshot));
    ctx.ticker.subscribe((now) => this.#open?.instance.onTick?.(now));
  }

  register(panel: PanelDefinition): void {
    this.#panels.set(panel.id, panel);
    this.#ctx.actions.add({
      id: `panel:${panel.id}`,
      label: `Open ${panel.title.toLowerCase()}`,
      ...(panel.keys === undefined ? {} : { keys: panel.keys }),
      run: () => this.open(panel.id),
    });
  }

  get openId(): string | null {
    return this.#open?.id ?? null;
  }

  open(id: string, options: PanelOpenOptions = {}): void {
    const panel = this.#panels.get(id);
    if (panel === undefined) return;
    if (this.#open !== null) this.#disposeOpen();
    else
      this.#returnFocus =
        document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setText(this.#title, panel.title);
    this.element.classList.toggle('sheet-wide', panel.wide === true);
    this.#body.replaceChildren();
    this.#open = { id, instance: panel.mount(this.#body, this.#ctx, options) };
    const snapshot = this.#ctx.store.snapshot;
    if (snapshot !== null) this.#open.instance.onSnapshot?.(snapshot);
    if (!this.element.open) this.element.showModal();
  }

  close(): boolean {
    if (!this.element.open) return false;
    this.element.close();
    return true;
  }

  #disposeOpen(): void {
    this.#open?.instance.dispose();
    this.#open = null;
    if (!this.element.open) {
      // The dialog's 'close' event is a queued task: a key pressed after Esc (say `/` focusing the
      // filter) can run first. Give focus back only while nothing else has taken it.
      const active = document.activeElement;
      const focusLost =
        active === null || active === document.body || this.element.contains(active);
      if (focusLost) this.#returnFocus?.focus();
      this.#returnFocus = null;
    }
  }
}
