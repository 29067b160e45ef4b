// Captured output kept for `GET /jobs/{name}/logs` (docs/http-api.md "GET /jobs/{name}/logs"): a
// ring of the last lines of every running instance and of each job's last finished run, fed by
// run:* events. It lives as long as the web controller, not a server, so a web restart keeps the
// buffers. Bounded: lines per run, bytes per run and characters per line.
import type { OutputStream } from '../runner/index.js';
import type { DaemonEvents } from './types.js';

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
  readonly #ring: (OutputEntry | undefined)[];
  readonly #listeners = new Set<OutputListener>();
  #start = 0;
  #count = 0;
  #chars = 0;
  #closed = false;

  constructor(jobName: string, runId: string, limits: OutputLimits) {
    this.jobName = jobName;
    this.runId = runId;
    this.#limits = limits;
    this.#ring = new Array<OutputEntry | undefined>(limits.maxLines);
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
      const entry = this.#ring[(this.#start + index) % this.#ring.length];
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
    const capacity = this.#ring.length;
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
    this.#start = (this.#start + 1) % this.#ring.length;
    this.#count--;
    this.#chars -= entry?.line.length ?? 0;
  }
}

interface JobOutputs {
  /** Running instances in start order. */
  readonly running: RunOutput[];
  lastFinished: RunOutput | null;
}

export class OutputTracker implements Disposable {
  readonly #limits: OutputLimits;
  readonly #jobs = new Map<string, JobOutputs>();
  readonly #runs = new Map<string, RunOutput>();
  readonly #unsubscribe: (() => void)[];

  constructor(events: DaemonEvents, limits: OutputLimits = DEFAULT_OUTPUT_LIMITS) {
    this.#limits = limits;
    this.#unsubscribe = [
      events.on('run:started', (event) => {
        this.#running(event.job.name, event.runId);
      }),
      events.on('run:output', (event) => {
        this.#running(event.jobName, event.runId).push({
          stream: event.stream,
          line: outputLineText(event.line, this.#limits.maxLineChars),
        });
      }),
      events.on('run:finished', (event) => this.#finish(event.job.name, event.runId)),
      events.on('config:applied', (event) => {
        for (const name of event.removed) this.#forget(name);
      }),
    ];
  }

  /**
   * The logs source (docs/http-api.md "GET /jobs/{name}/logs"): the newest running instance, else
   * the last finished run, else null.
   */
  source(jobName: string): RunOutput | null {
    const outputs = this.#jobs.get(jobName);
    if (!outputs) return null;
    return outputs.running.at(-1) ?? outputs.lastFinished;
  }

  #jobOutputs(jobName: string): JobOutputs {
    let outputs = this.#jobs.get(jobName);
    if (!outputs) {
      outputs = { running: [], lastFinished: null };
      this.#jobs.set(jobName, outputs);
    }
    return outputs;
  }

  /** The run's buffer, created on its first event (output may in principle precede the start). */
  #running(jobName: string, runId: string): RunOutput {
    let run = this.#runs.get(runId);
    if (!run) {
      run = new RunOutput(jobName, runId, this.#limits);
      this.#runs.set(runId, run);
      this.#jobOutputs(jobName).running.push(run);
    }
    return run;
  }

  #finish(jobName: string, runId: string): void {
    const run = this.#runs.get(runId) ?? new RunOutput(jobName, runId, this.#limits);
    this.#runs.delete(runId);
    const outputs = this.#jobOutputs(jobName);
    const index = outputs.running.indexOf(run);
    if (index !== -1) outputs.running.splice(index, 1);
    outputs.lastFinished = run;
    run.close();
  }

  #forget(jobName: string): void {
    const outputs = this.#jobs.get(jobName);
    if (!outputs) return;
    // Running instances of a removed job keep going until they finish; only drop finished output.
    outputs.lastFinished = null;
    if (outputs.running.length === 0) this.#jobs.delete(jobName);
  }

  [Symbol.dispose](): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    for (const run of this.#runs.values()) run.close();
    this.#runs.clear();
    this.#jobs.clear();
  }
}
