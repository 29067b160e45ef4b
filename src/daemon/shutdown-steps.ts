// The daemon's teardown after the jobs have drained, as named steps that share one deadline
// (docs/security.md "Shutdown"): a hung part (a store whose close never returns, a reload whose
// stat() queues behind hung fs calls, a report that never ends) is abandoned when the deadline
// passes, the steps after it still run, and the caller learns what was abandoned.
// Must not: wait for a step past the deadline, or skip a later step because an earlier one hung.
import { describeError, settlesWithin, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';

export interface ShutdownStep {
  /** What the step waits for, as the log line names it ("the state store"). */
  readonly what: string;
  /** The work, or undefined when the part does not exist (nothing to wait for). */
  readonly run: () => Promise<unknown> | undefined;
  /** Whether the part exists now (an absent one is not named as pending); default yes. */
  readonly present?: () => boolean;
}

export class ShutdownSteps {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #steps: readonly ShutdownStep[];
  /** Steps not finished yet, in order (the current one first). */
  readonly #pending: string[];
  readonly #abandoned: string[] = [];

  /** The steps are declared up front: until run() they are all pending. */
  constructor(clock: Clock, logger: Logger, steps: readonly ShutdownStep[]) {
    this.#clock = clock;
    this.#logger = logger;
    this.#steps = steps;
    this.#pending = steps.map((step) => step.what);
  }

  /** Steps not finished (started or not) whose part exists, for the forced exit's log line. */
  get pending(): readonly string[] {
    const present = new Set(
      this.#steps.filter((step) => step.present?.() !== false).map((step) => step.what),
    );
    return this.#pending.filter((what) => present.has(what));
  }

  /** Steps given up on at their deadline. */
  get abandoned(): readonly string[] {
    return this.#abandoned;
  }

  /** Run the steps one after another, each only until `deadlineMs` (monotonic). */
  async run(deadlineMs: number): Promise<void> {
    for (const step of this.#steps) {
      const finished = await this.#within(step, deadlineMs - this.#clock.monotonic());
      if (!finished) this.#abandoned.push(step.what);
      this.#pending.shift();
    }
  }

  async #within(step: ShutdownStep, budgetMs: number): Promise<boolean> {
    let work: Promise<unknown> | undefined;
    try {
      work = step.run();
    } catch (error) {
      this.#logger.error(`Cannot stop ${step.what}: ${describeError(error)}`);
      return true;
    }
    if (work === undefined) return true;
    const done = work.then(
      () => true,
      (error: unknown) => {
        this.#logger.error(`Cannot stop ${step.what}: ${describeError(error)}`);
        return true;
      },
    );
    return settlesWithin(done, budgetMs, this.#clock);
  }
}
