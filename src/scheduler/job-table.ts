// The scheduler's per-name runtime records and every running instance, in one table that the
// admission, the launcher and the views share. Must not: decide or launch anything.
import type { ResolvedJob } from '../config/index.js';
import { JobRuntime, type RunningInstance } from './job-runtime.js';

/** What pruning a name needs from the retry ladders. */
export interface PrunableRetries {
  hasPending(name: string): boolean;
  /** Drop the name's idle ladder (no timer pending) without settling anything. */
  forget(name: string): void;
}

export class JobTable {
  readonly #runtimes = new Map<string, JobRuntime>();
  readonly #running = new Set<RunningInstance>();
  readonly #currentJob: (name: string) => ResolvedJob | undefined;
  readonly #retries: PrunableRetries;
  #idleWaiters: (() => void)[] = [];

  constructor(currentJob: (name: string) => ResolvedJob | undefined, retries: PrunableRetries) {
    this.#currentJob = currentJob;
    this.#retries = retries;
  }

  /** The job's runtime, created on first use. */
  runtime(name: string): JobRuntime {
    let runtime = this.#runtimes.get(name);
    if (!runtime) {
      runtime = new JobRuntime();
      this.#runtimes.set(name, runtime);
    }
    return runtime;
  }

  find(name: string): JobRuntime | undefined {
    return this.#runtimes.get(name);
  }

  /**
   * Forget an unconfigured name's runtime once nothing refers to it any more, its idle ladder
   * with it: a job added again later under the name starts without one.
   */
  prune(name: string): void {
    const runtime = this.#runtimes.get(name);
    if (!runtime || this.#currentJob(name)) return;
    if (!runtime.idle || this.#retries.hasPending(name)) return;
    this.#runtimes.delete(name);
    this.#retries.forget(name);
  }

  get runningCount(): number {
    return this.#running.size;
  }

  runningInstances(): RunningInstance[] {
    return [...this.#running];
  }

  started(runtime: JobRuntime, instance: RunningInstance): void {
    runtime.running.add(instance);
    this.#running.add(instance);
  }

  /** The instance's process ended: it no longer counts as running (before it is settled). */
  ended(instance: RunningInstance): void {
    this.#runtimes.get(instance.job.name)?.running.delete(instance);
    this.#running.delete(instance);
  }

  /** The ended instance was settled: forget its runtime if it can, wake idle waiters. */
  settled(instance: RunningInstance): void {
    this.prune(instance.job.name);
    if (this.#running.size === 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const waiter of waiters) waiter();
    }
  }

  /** Call back once nothing runs (at once when nothing does). */
  onIdle(callback: () => void): void {
    if (this.#running.size === 0) callback();
    else this.#idleWaiters.push(callback);
  }
}
