// The one door to time: wall clock, monotonic clock and timers. Nothing else in src/ may call
// Date.now, setTimeout or setInterval (lint enforces it), so tests can drive time with FakeClock.
// Both clocks honour a delay the same way (normaliseDelayMs): NaN and negatives are 0, Infinity
// never fires, and a delay above Node's timer range re-arms in chunks instead of firing at once.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Wall-clock time, epoch milliseconds (may jump forwards or backwards). */
  now(): number;
  /** Monotonic milliseconds since an arbitrary origin; never goes backwards. */
  monotonic(): number;
  /** Call `callback` once after `delayMs` of monotonic time (any delay; Infinity = never). */
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  /** Resolve after `delayMs`; rejects with the signal's reason when aborted. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The longest delay Node's setTimeout honours (2^31 − 1 ms, about 24.8 days). A longer one (or
 * NaN) is silently replaced by 1 ms: a 25-day executionTimeout would kill the job at once.
 */
export const MAX_TIMER_CHUNK_MS = 2 ** 31 - 1;

/** A delay as both clocks honour it: NaN and negatives are 0, Infinity stays (never fires). */
export function normaliseDelayMs(delayMs: number): number {
  return Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs);
}

/** The platform timer underneath systemClock (a seam for the chunking tests). */
export interface TimerHost {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
  monotonic(): number;
}

/**
 * A one-shot timer for any delay on `host`: delays above `maxChunkMs` are waited out in chunks,
 * each re-armed for what is left on the monotonic clock, so the callback never comes early.
 */
export function setChunkedTimer(
  host: TimerHost,
  callback: () => void,
  delayMs: number,
  maxChunkMs = MAX_TIMER_CHUNK_MS,
): TimerHandle {
  const delay = normaliseDelayMs(delayMs);
  let handle: unknown;
  let cancelled = false;
  const cancel = (): void => {
    cancelled = true;
    if (handle !== undefined) host.clearTimeout(handle);
    handle = undefined;
  };
  // Never due: nothing to arm (and nothing that keeps the process alive).
  if (delay === Infinity) return { cancel };
  const dueAtMs = host.monotonic() + delay;
  const arm = (remainingMs: number): void => {
    const last = remainingMs <= maxChunkMs;
    handle = host.setTimeout(
      () => {
        handle = undefined;
        if (cancelled) return;
        if (last) {
          callback();
          return;
        }
        arm(Math.max(0, dueAtMs - host.monotonic()));
      },
      last ? remainingMs : maxChunkMs,
    );
  };
  arm(delay);
  return { cancel };
}

const nodeTimers: TimerHost = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  monotonic: () => performance.now(),
};

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(callback, delayMs) {
    return setChunkedTimer(nodeTimers, callback, delayMs);
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
