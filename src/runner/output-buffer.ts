// The live tail of one run's captured output (docs/http-api.md "GET /jobs/{name}/logs"): a ring of
// its last lines with listeners for the lines still to come, bounded in lines, characters and
// characters per line. The job log route keeps one per running job instance and last finished
// run; the DAG engine one per task attempt running here (docs/dags.md "HTTP").
// Must not: hold a line unbounded, or keep listeners after close.
import type { OutputStream } from './types.js';

export interface OutputEntry {
  readonly stream: OutputStream;
  /** The line without its trailing newline. */
  readonly line: string;
}

export interface OutputListener {
  line(entry: OutputEntry): void;
  /** The run's output closed (the run finished). */
  end(): void;
}

export interface OutputLimits {
  /** Lines kept per run (docs/http-api.md "GET /jobs/{name}/logs": 1000). */
  readonly maxLines: number;
  /** Characters kept per run; the oldest lines go first. */
  readonly maxChars: number;
  /** A longer line is cut to this many characters. */
  readonly maxLineChars: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  maxLines: 1000,
  maxChars: 1024 * 1024,
  maxLineChars: 64 * 1024,
};

const TRUNCATED_MARK = ' [truncated]';

/**
 * A logs line (docs/http-api.md "GET /jobs/{name}/logs"): trailing newline stripped, cut to
 * `maxLineChars`.
 */
export function outputLineText(line: string, maxLineChars: number): string {
  let text = line.endsWith('\n') ? line.slice(0, -1) : line;
  if (text.length > maxLineChars) text = text.slice(0, maxLineChars) + TRUNCATED_MARK;
  return text;
}

/** One run's buffered output and its live listeners. */
export class RunOutput {
  readonly jobName: string;
  readonly runId: string;
  readonly #limits: OutputLimits;
  /** Grows as lines come, up to limits.maxLines, then wraps (most runs print little or nothing). */
  readonly #ring: (OutputEntry | undefined)[] = [];
  readonly #listeners = new Set<OutputListener>();
  #start = 0;
  #count = 0;
  #chars = 0;
  #closed = false;

  constructor(jobName: string, runId: string, limits: OutputLimits) {
    this.jobName = jobName;
    this.runId = runId;
    this.#limits = limits;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Live listeners (open log streams on this run). */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** The buffered lines, oldest first. */
  lines(): OutputEntry[] {
    const out: OutputEntry[] = [];
    for (let index = 0; index < this.#count; index++) {
      const entry = this.#ring[(this.#start + index) % this.#limits.maxLines];
      if (entry) out.push(entry);
    }
    return out;
  }

  /** Live lines and the end, until unsubscribed. A closed run has nothing more to say. */
  subscribe(listener: OutputListener): () => void {
    if (this.#closed) return () => undefined;
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  push(entry: OutputEntry): void {
    if (this.#closed) return;
    const capacity = this.#limits.maxLines;
    if (this.#count === capacity) this.#dropOldest();
    this.#ring[(this.#start + this.#count) % capacity] = entry;
    this.#count++;
    this.#chars += entry.line.length;
    while (this.#chars > this.#limits.maxChars && this.#count > 1) this.#dropOldest();
    for (const listener of [...this.#listeners]) listener.line(entry);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) listener.end();
  }

  #dropOldest(): void {
    const entry = this.#ring[this.#start];
    this.#ring[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.#limits.maxLines;
    this.#count--;
    this.#chars -= entry?.line.length ?? 0;
  }
}
