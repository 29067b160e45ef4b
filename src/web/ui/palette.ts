// The command palette (Ctrl-K / ⌘K / Ctrl-P; docs/dashboard.md "Command palette"): fuzzy search
// over every global action and, once the query names jobs, their per-job actions. Arrow keys
// move, Enter runs, Escape closes. A listbox with aria-activedescendant keeps focus in the input.
import { fuzzyFilter } from '../model/fuzzy.js';
import type { Action, ActionRegistry } from './actions.js';
import { h, uniqueId } from './dom.js';
import type { AppStore } from './store.js';

const MAX_RESULTS = 50;
const MAX_JOBS = 40;

export class Palette {
  readonly element: HTMLDialogElement;
  readonly #actions: ActionRegistry;
  readonly #store: AppStore;
  readonly #input: HTMLInputElement;
  readonly #list: HTMLElement;
  #results: Action[] = [];
  #active = 0;

  constructor(actions: ActionRegistry, store: AppStore) {
    this.#actions = actions;
    this.#store = store;
    const listId = uniqueId('palette-list');
    this.#input = h('input', {
      class: 'palette-input',
      type: 'text',
      role: 'combobox',
      'aria-expanded': 'true',
      'aria-controls': listId,
      'aria-autocomplete': 'list',
      'aria-label': 'Command',
      placeholder: 'Type a command or a job name…',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.#list = h('ul', {
      id: listId,
      class: 'palette-list',
      role: 'listbox',
      'aria-label': 'Commands',
    });
    this.element = h(
      'dialog',
      { class: 'palette', 'aria-label': 'Command palette' },
      this.#input,
      this.#list,
    );
    this.#input.addEventListener('input', () => this.#search());
    this.#input.addEventListener('keydown', (event) => this.#onKey(event));
    this.#list.addEventListener('click', (event) => {
      const item = (event.target as HTMLElement).closest<HTMLElement>('[data-index]');
      if (item !== null) this.#runAt(Number(item.dataset['index']));
    });
    this.element.addEventListener('click', (event) => {
      if (event.target === this.element) this.element.close(); // the backdrop
    });
  }

  open(): void {
    if (this.element.open) return;
    this.#input.value = '';
    this.#search();
    this.element.showModal();
    this.#input.focus();
  }

  #search(): void {
    const query = this.#input.value;
    const candidates = this.#actions.global();
    const rows = this.#store.snapshot?.rows ?? [];
    if (query.trim() !== '') {
      const jobs = fuzzyFilter(rows, query.split(/\s+/).pop() ?? query, (row) => row.name)
        .slice(0, MAX_JOBS)
        .map((row) => row.name);
      candidates.push(...this.#actions.forJobs(jobs));
    }
    this.#results = fuzzyFilter(candidates, query, (action) => action.label).slice(0, MAX_RESULTS);
    this.#active = 0;
    this.#render();
  }

  #render(): void {
    this.#list.replaceChildren(
      ...this.#results.map((action, index) =>
        h(
          'li',
          {
            id: `palette-opt-${index}`,
            class: `palette-item${index === this.#active ? ' active' : ''}`,
            role: 'option',
            'aria-selected': index === this.#active ? 'true' : 'false',
            'data-index': index,
          },
          h('span', {}, action.label),
          action.keys === undefined ? null : h('kbd', {}, action.keys),
        ),
      ),
    );
    if (this.#results.length === 0)
      this.#list.append(
        h(
          'li',
          {
            class: 'palette-empty',
            role: 'option',
            'aria-disabled': 'true',
            'aria-selected': 'false',
          },
          'No matching command',
        ),
      );
    this.#input.setAttribute(
      'aria-activedescendant',
      this.#results.length === 0 ? '' : `palette-opt-${this.#active}`,
    );
    this.#list.querySelector('.active')?.scrollIntoView({ block: 'nearest' });
  }

  #onKey(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (this.#results.length === 0) return;
      this.#active =
        (this.#active + (event.key === 'ArrowDown' ? 1 : -1) + this.#results.length) %
        this.#results.length;
      this.#render();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      this.#runAt(this.#active);
    }
  }

  #runAt(index: number): void {
    const action = this.#results[index];
    if (action === undefined) return;
    this.element.close();
    action.run();
  }
}
