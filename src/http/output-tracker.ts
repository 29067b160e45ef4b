// Captured output kept for `GET /jobs/{name}/logs` (docs/http-api.md "GET /jobs/{name}/logs"): a
// ring of the last lines of every running instance and of each job's last finished run, fed by
// run:* events. It lives as long as the web controller, not a server, so a web restart keeps the
// buffers. Bounded: lines per run, bytes per run and characters per line.
import {
  DEFAULT_OUTPUT_LIMITS,
  RunOutput,
  outputLineText,
  type OutputLimits,
} from '../runner/index.js';
import type { DaemonEvents } from './types.js';

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
