// The lines of a log view (one job's stream, or up to four merged in the multi-tail): a bounded
// buffer that drops its oldest lines, numbers every line ever added, and answers searches
// (plain or regex, with a count). Pure; the view renders what it holds.
import { stripAnsi } from './ansi.js';

export type LogStream = 'stdout' | 'stderr';

export type LogLine =
  | {
      readonly kind: 'line';
      /** 1-based number among every line the buffer was given (dropped ones included). */
      readonly number: number;
      readonly stream: LogStream;
      /** The text as received (may hold ANSI escapes). */
      readonly raw: string;
      /** The text without escapes: what search, copy and download use. */
      readonly plain: string;
      /** Arrival instant (epoch ms). */
      readonly atMs: number;
      /** The job, in a merged view. */
      readonly job: string | null;
    }
  | {
      readonly kind: 'marker';
      readonly number: number;
      readonly text: string;
      readonly atMs: number;
      readonly job: string | null;
    };

export const DEFAULT_LOG_CAPACITY = 5000;

export class LogBuffer {
  readonly capacity: number;
  #lines: LogLine[] = [];
  #added = 0;
  /** Lines dropped from the front since the last clear. */
  dropped = 0;

  constructor(capacity = DEFAULT_LOG_CAPACITY) {
    this.capacity = capacity;
  }

  get lines(): readonly LogLine[] {
    return this.#lines;
  }

  get size(): number {
    return this.#lines.length;
  }

  add(stream: LogStream, raw: string, atMs: number, job: string | null = null): LogLine {
    this.#added += 1;
    const line: LogLine = {
      kind: 'line',
      number: this.#added,
      stream,
      raw,
      plain: stripAnsi(raw),
      atMs,
      job,
    };
    this.#push(line);
    return line;
  }

  mark(text: string, atMs: number, job: string | null = null): LogLine {
    this.#added += 1;
    const line: LogLine = { kind: 'marker', number: this.#added, text, atMs, job };
    this.#push(line);
    return line;
  }

  /** How many lines the last add pushed out (0 or more); the view drops as many nodes. */
  #push(line: LogLine): void {
    this.#lines.push(line);
    if (this.#lines.length > this.capacity) {
      // Drop in chunks of a tenth so the array is not shifted on every line.
      const excess = this.#lines.length - this.capacity + Math.floor(this.capacity / 10);
      this.#lines.splice(0, excess);
      this.dropped += excess;
    }
  }

  clear(): void {
    this.#lines = [];
    this.dropped = 0;
  }

  /** The whole buffer as text: `[job] ` prefixes in a merged view, markers included. */
  toText(): string {
    return this.#lines
      .map((line) => {
        const prefix = line.job === null ? '' : `[${line.job}] `;
        return line.kind === 'line' ? `${prefix}${line.plain}` : `${prefix}${line.text}`;
      })
      .join('\n');
  }
}

export interface LogSearch {
  readonly text: string;
  readonly regex: boolean;
}

export type LineMatcher =
  | { readonly ok: true; readonly test: (plain: string) => boolean }
  | { readonly ok: false; readonly error: string };

/** A case-insensitive matcher for a search, or the regex error. Empty text matches nothing. */
export function compileSearch(search: LogSearch): LineMatcher {
  if (search.text === '') return { ok: true, test: () => false };
  if (!search.regex) {
    const needle = search.text.toLowerCase();
    return { ok: true, test: (plain) => plain.toLowerCase().includes(needle) };
  }
  try {
    const pattern = new RegExp(search.text, 'i');
    return { ok: true, test: (plain) => pattern.test(plain) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Indices (into `lines`) of the lines that match. */
export function findMatches(lines: readonly LogLine[], test: (plain: string) => boolean): number[] {
  const hits: number[] = [];
  lines.forEach((line, index) => {
    if (test(line.kind === 'line' ? line.plain : line.text)) hits.push(index);
  });
  return hits;
}
