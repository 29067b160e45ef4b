// Short messages about what an action did ("Started backup", "Cannot POST ...: 409 ..."), in a
// polite live region so screen readers announce them; each disappears after a few seconds.
import type { Clock } from '../../common/clock.js';
import { h } from './dom.js';

export type ToastKind = 'info' | 'error';

export class Toasts {
  readonly element: HTMLElement;
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.element = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });
  }

  show(message: string, kind: ToastKind = 'info'): void {
    const toast = h('div', { class: `toast toast-${kind}` }, message);
    this.element.append(toast);
    while (this.element.childElementCount > 4) this.element.firstElementChild?.remove();
    this.#clock.setTimer(() => toast.remove(), kind === 'error' ? 8000 : 4000);
  }
}
