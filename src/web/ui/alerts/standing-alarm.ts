// The failure alarm on the page (docs/dashboard.md "Alarm escalation"): every job snapshot goes
// through model/alarm.ts; each ticker second sounds the standing alarm's tone when one is due
// (audible cues on; every few seconds, a bounded number of times) and tells the listeners (the
// wallboard's escalation) the state and the time. `acknowledge` (the `a` key, the wallboard's
// button) silences both until a new failure appears.
// Must not: replay missed tones in a burst (one tone per tick at most).
import type { Clock } from '../../../common/clock.js';
import {
  NO_ALARM,
  acknowledge,
  alarmState,
  failingJobs,
  observeFailures,
  tonesDue,
  type AlarmMemory,
  type AlarmState,
} from '../../model/alarm.js';
import type { AppStore } from '../store.js';
import type { Ticker } from '../ticker.js';

export class StandingAlarm {
  readonly #clock: Clock;
  readonly #playTone: () => void;
  readonly #listeners = new Set<(state: AlarmState, nowMs: number) => void>();
  #memory: AlarmMemory = NO_ALARM;
  #played = 0;
  #armedMs: number | null = null;

  constructor(store: AppStore, ticker: Ticker, clock: Clock, playTone: () => void) {
    this.#clock = clock;
    this.#playTone = playTone;
    store.on('snapshot', (snapshot) => {
      this.#memory = observeFailures(
        this.#memory,
        failingJobs(snapshot.rows.map((row) => row.job)),
        clock.now(),
      );
      this.#update(clock.now());
    });
    ticker.subscribe((now) => this.#update(now));
  }

  get state(): AlarmState {
    return alarmState(this.#memory);
  }

  /** Acknowledges every failure now; false when there was none unacknowledged. */
  acknowledge(): boolean {
    if (this.state.kind !== 'active') return false;
    this.#memory = acknowledge(this.#memory);
    this.#update(this.#clock.now());
    return true;
  }

  subscribe(listener: (state: AlarmState, nowMs: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #update(nowMs: number): void {
    if (this.#memory.armedMs !== this.#armedMs) {
      this.#armedMs = this.#memory.armedMs;
      this.#played = 0;
    }
    const due = tonesDue(this.#memory, nowMs);
    if (due > this.#played) {
      this.#played = due;
      this.#playTone();
    }
    const state = this.state;
    for (const listener of [...this.#listeners]) listener(state, nowMs);
  }
}
