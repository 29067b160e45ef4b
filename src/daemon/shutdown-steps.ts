// The daemon's stop as named steps (the parts' closes in teardown order, parts.ts). An awaited
// step runs to its end (stop firing, the drain, plain releases); the bounded ones share one
// deadline (docs/security.md "Shutdown"): a hung part (a store whose close never returns, a
// reload whose stat() queues behind hung fs calls, a report that never ends) is abandoned when
// the deadline passes, the steps after it still run, and the caller learns what was abandoned.
// Must not: wait for a bounded step past the deadline, or skip a later step because an earlier
// one hung or threw.
import { describeError, settlesWithin, type Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';

/** A step that shares the deadline (the default kind). */
export interface BoundedStep {
  readonly kind?: 'bounded';
  /** What the step waits for, as the log line names it ("the state store"). */
  readonly what: string;
  /** The work, or undefined when the part does not exist (nothing to wait for). */
  readonly run: () => Promise<unknown> | undefined;
  /** Whether the part exists now (an absent one is not named as pending); default yes. */
  readonly present?: () => boolean;
}

/** A step waited for to its end; its failure is thrown by run(), after every other step ran. */
export interface AwaitedStep {
  readonly kind: 'awaited';
  readonly what: string;
  readonly run: () => Promise<void> | void;
}

export type ShutdownStep = BoundedStep | AwaitedStep;

export class ShutdownSteps {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #steps: readonly ShutdownStep[];
  /** Bounded steps not finished yet, in order (the current one first). */
  readonly #pending: BoundedStep[];
  readonly #abandoned: string[] = [];

  /** The steps are declared up front: until run() they are all pending. */
  constructor(clock: Clock, logger: Logger, steps: readonly ShutdownStep[]) {
    this.#clock = clock;
    this.#logger = logger;
    this.#steps = steps;
    this.#pending = steps.filter((step) => step.kind !== 'awaited');
  }

  /** Bounded steps not finished (started or not) whose part exists, for the forced exit's log line. */
  get pending(): readonly string[] {
    return this.#pending.filter((step) => step.present?.() !== false).map((step) => step.what);
  }

  /** Steps given up on at their deadline. */
  get abandoned(): readonly string[] {
    return this.#abandoned;
  }

  /**
   * Run the steps one after another, each bounded one only until the deadline (monotonic ms; a
   * function is asked once, when the first bounded step starts). Every step runs; the awaited
   * steps' failures are thrown at the end (one as it is, several as an AggregateError).
   */
  async run(deadline: number | (() => number)): Promise<void> {
    let deadlineMs: number | undefined;
    const failures: unknown[] = [];
    for (const step of this.#steps) {
      if (step.kind === 'awaited') {
        try {
          // Only a promise is awaited: synchronous steps run in one turn (firing stops and the
          // cluster manager's stop begins at once).
          const work = step.run();
          if (work !== undefined) await work;
        } catch (error) {
          failures.push(error);
        }
        continue;
      }
      deadlineMs ??= typeof deadline === 'number' ? deadline : deadline();
      const finished = await this.#within(step, deadlineMs - this.#clock.monotonic());
      if (!finished) this.#abandoned.push(step.what);
      this.#pending.shift();
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, 'Several parts failed to stop');
  }

  async #within(step: BoundedStep, budgetMs: number): Promise<boolean> {
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
