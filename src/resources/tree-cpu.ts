// CPU time of one run's process tree, accumulated across passes so that it never goes down and
// counts each process once. Per process the kernel reports its own time and the time of the
// children it reaped; a child's time moves into its parent's "children" figure when the parent
// waits for it, so a plain sum over the live tree would drop and double-count as processes come
// and go. Per pass, each live process contributes the growth of its own time plus the growth of
// its reaped-children time minus what was already counted for the members that disappeared
// under it (their last reading, and recursively their own departed children).
// What is lost (docs/configuration.md "monitorResources"): the last interval of a process whose
// parent is outside the tree or does not wait for it, the run's root above all (the daemon reaps
// it), so a run's total can be short by up to one interval of its last processes' CPU.
// Must not: decrease; read the clock (the caller stamps samples).
import type { ProcStat } from './proc-stat.js';

interface Counted {
  readonly user: number;
  readonly system: number;
}

export class TreeCpu {
  /** Ticks counted so far. */
  userTicks = 0;
  systemTicks = 0;
  /** The members of the previous pass, by pid. */
  #previous = new Map<number, ProcStat>();

  /** Fold in one pass's live members (an empty list: every member is gone). */
  update(live: readonly ProcStat[]): void {
    const current = new Map<number, ProcStat>();
    for (const stat of live) current.set(stat.pid, stat);

    const departed = new Map<number, ProcStat>();
    for (const [pid, previous] of this.#previous) {
      if (current.get(pid)?.startTicks !== previous.startTicks) departed.set(pid, previous);
    }
    const subtract = departed.size === 0 ? undefined : countedUnder(departed);

    for (const stat of live) {
      const previous = this.#previous.get(stat.pid);
      const same = previous !== undefined && previous.startTicks === stat.startTicks;
      const gone = subtract?.get(stat.pid);
      // A new member's own time was never counted; its reaped children are counted through it.
      this.userTicks +=
        Math.max(0, stat.userTicks - (same ? previous.userTicks : 0)) +
        Math.max(0, stat.childUserTicks - (same ? previous.childUserTicks : 0) - (gone?.user ?? 0));
      this.systemTicks +=
        Math.max(0, stat.systemTicks - (same ? previous.systemTicks : 0)) +
        Math.max(
          0,
          stat.childSystemTicks - (same ? previous.childSystemTicks : 0) - (gone?.system ?? 0),
        );
    }
    this.#previous = current;
  }
}

/**
 * For each parent pid, the ticks already counted for its departed children: a departed
 * process's last reading (own plus reaped children) plus, recursively, its departed children.
 */
function countedUnder(departed: ReadonlyMap<number, ProcStat>): Map<number, Counted> {
  const children = new Map<number, ProcStat[]>();
  for (const stat of departed.values()) {
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  const memo = new Map<number, Counted>();
  const counted = (stat: ProcStat, depth: number): Counted => {
    const done = memo.get(stat.pid);
    if (done) return done;
    let user = stat.userTicks + stat.childUserTicks;
    let system = stat.systemTicks + stat.childSystemTicks;
    if (depth < 64) {
      for (const child of children.get(stat.pid) ?? []) {
        if (child === stat) continue;
        const below = counted(child, depth + 1);
        user += below.user;
        system += below.system;
      }
    }
    const result = { user, system };
    memo.set(stat.pid, result);
    return result;
  };
  const byParent = new Map<number, Counted>();
  for (const stat of departed.values()) {
    // A departed process under a departed parent is counted through that parent.
    if (departed.has(stat.ppid) && stat.ppid !== stat.pid) continue;
    const mine = counted(stat, 0);
    const sum = byParent.get(stat.ppid);
    byParent.set(stat.ppid, {
      user: (sum?.user ?? 0) + mine.user,
      system: (sum?.system ?? 0) + mine.system,
    });
  }
  return byParent;
}
