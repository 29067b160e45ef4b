// The daemon's configuration check (docs/configuration.md "Reloading"): one timer, re-armed after
// each check ends, so checks never overlap; a check that fails is logged and the next one comes
// at the next interval. Cancelled at stop, where a check still in flight is waited for (after the
// jobs: its stat() may queue behind hung fs calls).
// Must not: arm again once cancelled.
import { describeError, type Clock, type TimerHandle } from '../common/index.js';
import type { Logger } from '../logging/index.js';

export class ReloadLoop {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #check: () => Promise<void>;
  #timer: TimerHandle | undefined;
  #inFlight: Promise<void> | undefined;
  #cancelled = false;

  constructor(deps: {
    clock: Clock;
    logger: Logger;
    intervalMs: number;
    /** One check (reload if changed, then housekeeping). */
    check: () => Promise<void>;
  }) {
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#intervalMs = deps.intervalMs;
    this.#check = deps.check;
  }

  /** The check running now, if any. */
  get inFlight(): Promise<void> | undefined {
    return this.#inFlight;
  }

  arm(): void {
    if (this.#cancelled) return;
    this.#timer = this.#clock.setTimer(() => {
      this.#inFlight = this.#check()
        .catch((error: unknown) =>
          this.#logger.error(`Cannot check the configuration for changes: ${describeError(error)}`),
        )
        .finally(() => {
          this.#inFlight = undefined;
          this.arm();
        });
    }, this.#intervalMs);
  }

  /** No check starts after this; one in flight finishes (see inFlight). */
  cancel(): void {
    this.#cancelled = true;
    this.#timer?.cancel();
  }
}
