// The one bounded wait of every close and shutdown step: wait for some work at most a budget on
// the injected clock, then go on either way (a store hung on a dead mount, a run that ignores
// its grace, a reconciler that never answers must not hang the daemon's shutdown). The work
// keeps running past the budget; nothing here can cancel it.
// Must not: throw, or leave its timer armed once the work settled (it is cancelled in the same
// turn, so a caller that checks the clock's timers right after sees none).
import type { Clock } from './clock.js';
import { createDeferred } from './deferred.js';

/**
 * True when `work` settled (resolved or rejected: the caller handles a rejection on `work`
 * itself) within `budgetMs` on `clock`, false when the budget ran out first. An infinite
 * budget waits without a timer; a budget of zero or less still lets work that is already
 * settled answer true.
 */
export function settlesWithin(
  work: Promise<unknown>,
  budgetMs: number,
  clock: Clock,
): Promise<boolean> {
  if (budgetMs === Infinity) {
    return work.then(
      () => true,
      () => true,
    );
  }
  const answer = createDeferred<boolean>();
  const timer = clock.setTimer(() => answer.resolve(false), Math.max(budgetMs, 0));
  const settled = (): void => {
    timer.cancel();
    answer.resolve(true);
  };
  work.then(settled, settled);
  return answer.promise;
}
