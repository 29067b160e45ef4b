// The daemon's heap at rest (docs/performance.md "Memory"). Loading a large configuration is
// an allocation burst: V8 grows its young generation to the maximum (16 MB semi-spaces) and the
// old generation past what stays live, and keeps both committed while the daemon then idles for
// hours. Measured at 10k jobs: 146 MB RSS with a 28 MB live heap; with the young generation kept
// at its initial size and one compacting collection once started, 90 MB.
// Must not: run a collection on any path that repeats per run or per request.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Keeps the young generation at its initial size (no semi-space growth). Call before the
 * configuration is loaded; affects only scavenge frequency, which a cron daemon never notices.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * One full, compacting collection: what the start-up left behind is freed and the pages are
 * handed back. For once after start-up (and after a reload), never on a hot path.
 */
export function compactHeap(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
}
