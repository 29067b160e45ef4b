// The one bounded wait of every close and shutdown step: wait for some work at most a budget on
// the injected clock, then go on either way (a store hung on a dead mount, a run that ignores
// its grace, a reconciler that never answers must not hang the daemon's shutdown). The work
// keeps running past the budget; nothing here can cancel it.
// Must not: throw, or leave its timer armed once it answered.
import type { Clock } from './clock.js';

/**
 * True when `work` settled (resolved or rejected: the caller handles a rejection on `work`
 * itself) within `budgetMs` on `clock`, false when the budget ran out first. An infinite
 * budget waits without a timer; a budget of zero or less still lets work that is already
 * settled answer true.
 */
export async function settlesWithin(
  work: Promise<unknown>,
  budgetMs: number,
  clock: Clock,
): Promise<boolean> {
  const settled = work.then(
    () => true,
    () => true,
  );
  if (budgetMs === Infinity) return settled;
  const giveUp = new AbortController();
  const expired = clock.sleep(Math.max(budgetMs, 0), giveUp.signal).then(
    () => false,
    () => false,
  );
  try {
    return await Promise.race([settled, expired]);
  } finally {
    giveUp.abort();
  }
}
