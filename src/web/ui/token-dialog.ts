// The token prompt (docs/dashboard.md "Authentication"): opens on the first 401 of a data call
// or from the header's key button; the token is kept per tab (TokenStore) and sent as a bearer
// token on every call. Clearing it returns to unauthenticated calls.
import type { AppContext } from './context.js';
import { h, uniqueId } from './dom.js';

export class TokenDialog {
  readonly element: HTMLDialogElement;
  readonly #input: HTMLInputElement;
  readonly #message: HTMLElement;
  #promptedFor401 = false;

  constructor(ctx: AppContext) {
    const id = uniqueId('token');
    this.#input = h('input', {
      id,
      type: 'password',
      autocomplete: 'off',
      spellcheck: 'false',
      class: 'token-input',
    });
    this.#message = h('p', { class: 'muted' });
    const form = h(
      'form',
      { method: 'dialog', class: 'token-form' },
      h('h2', {}, 'Access token'),
      this.#message,
      h('label', { for: id }, 'Bearer token (web.authToken)'),
      this.#input,
      h(
        'div',
        { class: 'dialog-actions' },
        h('button', { class: 'btn btn-primary', type: 'submit', value: 'save' }, 'Use token'),
        h('button', { class: 'btn', type: 'submit', value: 'clear' }, 'Clear token'),
        h(
          'button',
          { class: 'btn', type: 'submit', value: 'cancel', formnovalidate: true },
          'Cancel',
        ),
      ),
    );
    this.element = h('dialog', { class: 'token-dialog', 'aria-labelledby': id }, form);
    this.element.addEventListener('close', () => {
      const choice = this.element.returnValue;
      if (choice === 'save' && this.#input.value.trim() !== '') ctx.tokens.set(this.#input.value);
      else if (choice === 'clear') ctx.tokens.set(null);
      else return;
      this.#input.value = '';
      this.#promptedFor401 = false;
      ctx.store.setConnection({ state: 'connecting' });
      void ctx.poller.refresh();
    });
  }

  /** The page got a 401: prompt once until a token is entered. */
  onUnauthorized(hasToken: boolean): void {
    if (this.#promptedFor401) return;
    this.#promptedFor401 = true;
    this.open(
      hasToken
        ? 'The daemon refused the token in use. Enter the current one.'
        : 'This daemon needs a token to show its jobs.',
    );
  }

  open(message = 'Set the token this tab sends to the daemon (kept in this tab only).'): void {
    this.#message.textContent = message;
    this.element.returnValue = '';
    if (!this.element.open) this.element.showModal();
    this.#input.focus();
  }
}
