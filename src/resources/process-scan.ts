// One pass over /proc for every monitored run at once: which live processes belong to which
// run's process tree. A process belongs to a run when it is the run's root, is in the run's
// session or process group (every run leads its own session: src/runner spawns it with
// setsid), or its parent belongs to the run when it is first seen. Membership is sticky: a
// descendant that later calls setsid or setpgid (a daemonising grandchild, a shell's job
// control) is still counted for as long as it lives. docs/configuration.md "monitorResources"
// states what escapes (a process that leaves the tree and whose parent exits between two passes).
//
// Cost: the listing of /proc is read every pass, but a process is only read when it is new
// since the previous pass or belongs to a monitored run. A process that is not a member cannot
// become one (it cannot join a run's session, and a new member is always a new process), so
// the rest of the host costs one directory entry per pass. After a run is added, the next
// pass re-reads everything once (the new root, or its first children, may be known already).
// Must not: read anything but /proc/<pid>/stat per process.
import type { ProcSource } from './proc-source.js';
import { parseProcStat, type ProcStat } from './proc-stat.js';

interface KnownProcess {
  readonly startTicks: number;
  /** The run this process was counted for; null = not in any run's tree. */
  readonly run: number | null;
  /** The pass that last listed it. */
  seenPass: number;
}

export interface ScanResult {
  /** Live member processes by run key (runs without a live process are absent). */
  readonly members: ReadonlyMap<number, readonly ProcStat[]>;
  /** /proc/<pid>/stat files read on this pass. */
  readonly reads: number;
}

/** A run's root process, keyed by a run key that is never reused (pids are). */
export type RunRoots = ReadonlyMap<number, number>;

/** The longest parent chain followed to classify a new process (a cycle guard). */
const MAX_ANCESTRY = 64;

function isPidName(name: string): boolean {
  const first = name.charCodeAt(0);
  return first >= 48 && first <= 57;
}

export class ProcessScanner {
  readonly #source: ProcSource;
  readonly #procRoot: string;
  readonly #known = new Map<number, KnownProcess>();
  #pass = 0;

  constructor(source: ProcSource, procRoot = '/proc') {
    this.#source = source;
    this.#procRoot = procRoot;
  }

  /** Forget every process (no run is monitored: nothing to keep up to date). */
  reset(): void {
    this.#known.clear();
  }

  /**
   * One pass. `roots` maps each monitored run's root pid to its run key; `activeRuns` are the
   * keys still monitored (members of other runs are left alone). `rescan` re-reads and
   * re-classifies every process that is not a member (after a run was added).
   * Undefined when /proc cannot be listed.
   */
  scan(roots: RunRoots, activeRuns: ReadonlySet<number>, rescan: boolean): ScanResult | undefined {
    const names = this.#source.listDir(this.#procRoot);
    if (names === undefined) return undefined;
    const pass = ++this.#pass;
    const members = new Map<number, ProcStat[]>();
    const fresh = new Map<number, ProcStat>();
    let reads = 0;
    for (const name of names) {
      if (!isPidName(name)) continue;
      const pid = Number(name);
      const known = this.#known.get(pid);
      const active = known !== undefined && known.run !== null && activeRuns.has(known.run);
      if (known !== undefined && !active && !rescan) {
        known.seenPass = pass;
        continue;
      }
      const text = this.#source.readText(`${this.#procRoot}/${name}/stat`);
      reads++;
      const stat = text === undefined ? undefined : parseProcStat(text);
      if (stat === undefined) continue; // exited since the listing
      if (active && known.startTicks === stat.startTicks) {
        known.seenPass = pass;
        push(members, known.run, stat);
        continue;
      }
      fresh.set(pid, stat); // new, a reused pid, or re-classified
    }
    const classified = new Map<number, number | null>();
    for (const stat of fresh.values()) {
      const run = this.#classify(stat, roots, activeRuns, fresh, classified, 0);
      this.#known.set(stat.pid, { startTicks: stat.startTicks, run, seenPass: pass });
      if (run !== null) push(members, run, stat);
    }
    for (const [pid, known] of this.#known) {
      if (known.seenPass !== pass) this.#known.delete(pid);
    }
    return { members, reads };
  }

  #classify(
    stat: ProcStat,
    roots: RunRoots,
    activeRuns: ReadonlySet<number>,
    fresh: ReadonlyMap<number, ProcStat>,
    classified: Map<number, number | null>,
    depth: number,
  ): number | null {
    const done = classified.get(stat.pid);
    if (done !== undefined) return done;
    // The kernel never reuses a pid still in use as a session or group id, so a live run's
    // root pid as session or pgrp means that run's session or group.
    let run = roots.get(stat.pid) ?? roots.get(stat.session) ?? roots.get(stat.pgrp) ?? null;
    if (run === null && depth < MAX_ANCESTRY) {
      const parent = fresh.get(stat.ppid);
      if (parent !== undefined && parent !== stat) {
        run = this.#classify(parent, roots, activeRuns, fresh, classified, depth + 1);
      } else {
        const known = this.#known.get(stat.ppid);
        if (known?.run != null && activeRuns.has(known.run)) run = known.run;
      }
    }
    classified.set(stat.pid, run);
    return run;
  }
}

function push(members: Map<number, ProcStat[]>, run: number, stat: ProcStat): void {
  const list = members.get(run);
  if (list) list.push(stat);
  else members.set(run, [stat]);
}
