// Incremental parser of a text/event-stream body (the job log streams of docs/http-api.md
// "Streams"): chunks in, complete events out. The page reads streams with fetch (EventSource
// cannot send the bearer token), so it parses them itself. Pure.
// Must not: buffer without bound — an event or a line longer than the limit is dropped whole.

export interface SseEvent {
  /** `message` when the event names none. */
  readonly event: string;
  readonly data: string;
}

export interface SseParserOptions {
  /** Longest event (sum of its data lines) kept, in characters. */
  readonly maxEventChars: number;
}

export const DEFAULT_SSE_OPTIONS: SseParserOptions = { maxEventChars: 1_048_576 };

export class SseParser {
  readonly #maxChars: number;
  #pending = '';
  #event = '';
  #data: string[] = [];
  #dataChars = 0;
  #oversize = false;
  #skipLeadingNewline = false;
  /** Events dropped for being over the limit. */
  dropped = 0;

  constructor(options: SseParserOptions = DEFAULT_SSE_OPTIONS) {
    this.#maxChars = options.maxEventChars;
  }

  /** Feeds a decoded chunk; returns the events it completed. */
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
      this.#line(text.slice(start, end), events);
      if (text[end] === '\r' && end + 1 === text.length) {
        // A CR ending the chunk: its LF, if any, starts the next chunk.
        this.#skipLeadingNewline = true;
        start = end + 1;
      } else if (text[end] === '\r' && text[end + 1] === '\n') start = end + 2;
      else start = end + 1;
    }
    this.#pending = text.slice(start);
    if (this.#pending.length > this.#maxChars) {
      // A line that never ends within the limit: drop it and the event it belongs to.
      this.#pending = '';
      this.#oversize = true;
    }
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.#dispatch(events);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') {
      this.#dataChars += value.length + 1;
      if (this.#dataChars > this.#maxChars) this.#oversize = true;
      else this.#data.push(value);
    }
  }

  #dispatch(events: SseEvent[]): void {
    if (this.#oversize) this.dropped += 1;
    else if (this.#data.length > 0) {
      events.push({
        event: this.#event === '' ? 'message' : this.#event,
        data: this.#data.join('\n'),
      });
    }
    this.#event = '';
    this.#data = [];
    this.#dataChars = 0;
    this.#oversize = false;
  }
}
