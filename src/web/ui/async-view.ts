// An element filled by an asynchronous read (the History and Resources tabs, node history): a
// loading note until the first answer, then the rendered nodes or the error's message. Only the
// newest read may fill it, and nothing does after dispose. While a read is pending the element is
// `aria-busy` (what it shows is the previous answer).
import { h } from './dom.js';

export class AsyncView {
  readonly element: HTMLElement;
  #generation = 0;
  #disposed = false;

  constructor(className: string) {
    this.element = h('div', { class: className }, h('p', { class: 'muted' }, 'Loading…'));
  }

  load(read: () => Promise<readonly Node[]>): void {
    const generation = ++this.#generation;
    this.element.setAttribute('aria-busy', 'true');
    read()
      .then((nodes) => {
        if (this.#disposed || generation !== this.#generation) return;
        this.element.removeAttribute('aria-busy');
        this.element.replaceChildren(...nodes);
      })
      .catch((error: unknown) => {
        if (this.#disposed || generation !== this.#generation) return;
        this.element.removeAttribute('aria-busy');
        this.element.replaceChildren(
          h('p', { class: 'error' }, error instanceof Error ? error.message : String(error)),
        );
      });
  }

  dispose(): void {
    this.#disposed = true;
  }
}
