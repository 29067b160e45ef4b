// Turns the lines of a server-sent event stream (docs/http-api.md "Streams (server-sent
// events)") into events: `event:` names one, `data:` lines are joined with newlines, a blank line
// dispatches it, a `:` line (the server's keep-alive ping) is ignored. The data of one event is
// bounded, as the lines are (line-splitter.ts).

export interface SseEvent {
  /** `message` when the event named none (the SSE default). */
  readonly event: string;
  readonly data: string;
}

export type SseLineResult = { readonly kind: 'ok' } | { readonly kind: 'overflow' };

export class SseParser {
  readonly #maxDataChars: number;
  readonly #onEvent: (event: SseEvent) => void;
  #event = '';
  #data: string[] = [];
  #dataChars = 0;

  constructor(maxDataChars: number, onEvent: (event: SseEvent) => void) {
    this.#maxDataChars = maxDataChars;
    this.#onEvent = onEvent;
  }

  /** One line of the stream, without its line ending. */
  line(raw: string): SseLineResult {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') {
      if (this.#data.length > 0 || this.#event !== '') {
        const event = {
          event: this.#event === '' ? 'message' : this.#event,
          data: this.#data.join('\n'),
        };
        this.#event = '';
        this.#data = [];
        this.#dataChars = 0;
        this.#onEvent(event);
      }
      return { kind: 'ok' };
    }
    if (line.startsWith(':')) return { kind: 'ok' };
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') {
      this.#event = value;
    } else if (field === 'data') {
      this.#dataChars += value.length + 1;
      if (this.#dataChars > this.#maxDataChars) return { kind: 'overflow' };
      this.#data.push(value);
    }
    // `id:`, `retry:` and unknown fields: nothing the CLI uses.
    return { kind: 'ok' };
  }
}
