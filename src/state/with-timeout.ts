// Bounds a scheduling-path read (depends-on-past gate, catch-up watermark, rehydration): past
// the deadline the caller gets YC_ERR_STATE_TIMEOUT and falls back, so a hung NFS server
// degrades the durable features instead of stalling launches. The read itself keeps running
// (nothing can cancel a blocked syscall); its late result or error is swallowed.
import { type Clock, YacronError } from '../common/index.js';

/** The seed's bound on reads that sit on a scheduling path. */
export const SCHEDULING_READ_TIMEOUT_MS = 10_000;

export function withTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  clock: Clock,
  what = 'read the state store',
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = clock.setTimer(() => {
      if (settled) return;
      settled = true;
      reject(
        new YacronError(
          'YC_ERR_STATE_TIMEOUT',
          `Cannot ${what}: no answer within ${timeoutMs / 1000} s`,
        ),
      );
    }, timeoutMs);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
