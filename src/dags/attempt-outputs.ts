// The live output of the task attempts running on this node (docs/dags.md "HTTP", the task log
// stream): one bounded buffer per attempt, keyed by DAG, run key and task key, registered when
// the attempt starts and closed and dropped when its process ends (a stream open on it then gets
// its `end`). Nothing survives the attempt: a finished task's output is in its run's archive, if
// anywhere.
// Must not: keep a buffer past its attempt, or let a stale attempt drop its successor's buffer.
import { DEFAULT_OUTPUT_LIMITS, RunOutput, type OutputLimits } from '../runner/index.js';

function keyOf(dag: string, runKey: string, taskKey: string): string {
  return JSON.stringify([dag, runKey, taskKey]);
}

export class AttemptOutputs {
  readonly #limits: OutputLimits;
  readonly #outputs = new Map<string, RunOutput>();

  constructor(limits: OutputLimits = DEFAULT_OUTPUT_LIMITS) {
    this.#limits = limits;
  }

  /** A new buffer for an attempt starting now; it replaces (and closes) any left for the key. */
  open(dag: string, runKey: string, taskKey: string, jobName: string, runId: string): RunOutput {
    const key = keyOf(dag, runKey, taskKey);
    this.#outputs.get(key)?.close();
    const output = new RunOutput(jobName, runId, this.#limits);
    this.#outputs.set(key, output);
    return output;
  }

  /** The attempt ended: its buffer is closed (its listeners get `end`) and forgotten. */
  close(dag: string, runKey: string, taskKey: string, output: RunOutput): void {
    output.close();
    const key = keyOf(dag, runKey, taskKey);
    if (this.#outputs.get(key) === output) this.#outputs.delete(key);
  }

  /** The output of the attempt of `taskKey` running here now, or null. */
  running(dag: string, runKey: string, taskKey: string): RunOutput | null {
    return this.#outputs.get(keyOf(dag, runKey, taskKey)) ?? null;
  }

  /** Attempts with a buffer (for tests and the metrics' sanity). */
  get size(): number {
    return this.#outputs.size;
  }
}
