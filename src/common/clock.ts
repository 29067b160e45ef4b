// The one door to time: wall clock, monotonic clock and timers. Nothing else in src/ may call
// Date.now, setTimeout or setInterval (lint enforces it), so tests can drive time with FakeClock.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Wall-clock time, epoch milliseconds (may jump forwards or backwards). */
  now(): number;
  /** Monotonic milliseconds since an arbitrary origin; never goes backwards. */
  monotonic(): number;
  /** Call `callback` once after `delayMs` of monotonic time. */
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  /** Resolve after `delayMs`; rejects with the signal's reason when aborted. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(callback, delayMs) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(timer) };
  },
  sleep(delayMs, signal) {
    return sleepWith(this, delayMs, signal);
  },
};

/** Shared sleep built on `clock.setTimer`, so FakeClock and systemClock behave alike. */
export function sleepWith(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      reject(signal?.reason as Error);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
