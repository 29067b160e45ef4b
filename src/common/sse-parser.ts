// The one parser of a text/event-stream body (docs/http-api.md "Streams (server-sent events)"),
// shared by the dashboard (which reads streams with fetch, since EventSource cannot send the
// bearer token) and `yacron2 logs` (docs/cli.md "yacron2 logs"). `event:` names an event,
// `data:` lines are joined with newlines, a blank line dispatches it, a `:` line (the server's
// keep-alive ping) and other fields are ignored; an event without data is not dispatched.
// Node-free: the page bundles it.
// Must not: buffer without bound. An event whose data passes `maxEventChars` is dropped whole
// (`line` says `overflow` once, so a caller may stop instead), and `push` drops a line that never
// ends within the bound.

export interface SseEvent {
  /** `message` when the event names none (the SSE default). */
  readonly event: string;
  readonly data: string;
}

/** What one line did: nothing yet, completed an event, or pushed the event past the bound. */
export type SseStep =
  | { readonly kind: 'pending' }
  | { readonly kind: 'event'; readonly event: SseEvent }
  | { readonly kind: 'overflow' };

const PENDING: SseStep = { kind: 'pending' };
const OVERFLOW: SseStep = { kind: 'overflow' };

export class SseParser {
  readonly #maxChars: number;
  #event = '';
  #data: string[] = [];
  #dataChars = 0;
  #oversize = false;
  /** The text after the last line ending `push` saw. */
  #pending = '';
  #skipLeadingNewline = false;
  /** Events dropped for being over the bound. */
  dropped = 0;

  constructor(maxEventChars: number) {
    this.#maxChars = maxEventChars;
  }

  /** One line of the stream without its line ending (a trailing CR is removed). */
  line(raw: string): SseStep {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return PENDING;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data' && !this.#oversize) {
      this.#dataChars += value.length + 1;
      if (this.#dataChars > this.#maxChars) return this.#overflow();
      this.#data.push(value);
    }
    // `id:`, `retry:` and unknown fields: nothing a reader here uses.
    return PENDING;
  }

  /** Feeds a decoded chunk of any size (lines end in LF, CRLF or CR); returns the events it completed. */
  push(chunk: string): SseEvent[] {
    const events: SseEvent[] = [];
    let text = this.#pending + chunk;
    if (this.#skipLeadingNewline && text.startsWith('\n')) text = text.slice(1);
    this.#skipLeadingNewline = false;
    let start = 0;
    for (;;) {
      const cr = text.indexOf('\r', start);
      const lf = text.indexOf('\n', start);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      const step = this.line(text.slice(start, end));
      if (step.kind === 'event') events.push(step.event);
      if (text[end] === '\r' && end + 1 === text.length) {
        // A CR ending the chunk: its LF, if any, starts the next chunk.
        this.#skipLeadingNewline = true;
        start = end + 1;
      } else if (text[end] === '\r' && text[end + 1] === '\n') start = end + 2;
      else start = end + 1;
    }
    this.#pending = text.slice(start);
    if (this.#pending.length > this.#maxChars) {
      // A line that never ends within the bound: drop it and the event it belongs to.
      this.#pending = '';
      if (!this.#oversize) this.#overflow();
    }
    return events;
  }

  #overflow(): SseStep {
    this.#oversize = true;
    this.#data = [];
    this.#dataChars = 0;
    return OVERFLOW;
  }

  #dispatch(): SseStep {
    const dropped = this.#oversize;
    const step: SseStep =
      dropped || this.#data.length === 0
        ? PENDING
        : {
            kind: 'event',
            event: {
              event: this.#event === '' ? 'message' : this.#event,
              data: this.#data.join('\n'),
            },
          };
    if (dropped) this.dropped += 1;
    this.#event = '';
    this.#data = [];
    this.#dataChars = 0;
    this.#oversize = false;
    return step;
  }
}
