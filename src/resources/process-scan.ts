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
import type { OpenFile, ProcSource } from './proc-source.js';
import { parseProcStat, type ProcStat } from './proc-stat.js';

interface KnownProcess {
  readonly startTicks: number;
  /** The run this process was counted for; null = not in any run's tree. */
  readonly run: number | null;
  /** The pass that last listed it. */
  seenPass: number;
  /** A member's stat file kept open (one read per pass instead of open, read, close). */
  file: OpenFile | null;
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
/** Stat files of members kept open at most (each holds a file descriptor); the rest are reopened. */
export const MAX_OPEN_STAT_FILES = 256;

function isPidName(name: string): boolean {
  const first = name.charCodeAt(0);
  return first >= 48 && first <= 57;
}

export class ProcessScanner {
  readonly #source: ProcSource;
  readonly #procRoot: string;
  readonly #known = new Map<number, KnownProcess>();
  #pass = 0;
  #openFiles = 0;
  /** When each run's root started (ticks), once seen: a later process on its pid is not it. */
  readonly #rootStarts = new Map<number, number>();

  constructor(source: ProcSource, procRoot = '/proc') {
    this.#source = source;
    this.#procRoot = procRoot;
  }

  /** Forget every process (no run is monitored: nothing to keep up to date). */
  reset(): void {
    for (const known of this.#known.values()) this.#closeFile(known);
    this.#known.clear();
    this.#rootStarts.clear();
  }

  /** Stat files held open now. */
  get openFiles(): number {
    return this.#openFiles;
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
      if (known !== undefined && !active) {
        this.#closeFile(known);
        if (!rescan) {
          known.seenPass = pass;
          continue;
        }
      }
      const path = `${this.#procRoot}/${name}/stat`;
      let text = active ? known.file?.read() : undefined;
      if (text === undefined) {
        if (active) this.#closeFile(known); // gone, or its pid reused: read the new one by path
        text = this.#source.readText(path);
      }
      reads++;
      const stat = text === undefined ? undefined : parseProcStat(text);
      if (stat === undefined) continue; // exited since the listing
      if (active && known.startTicks === stat.startTicks) {
        known.seenPass = pass;
        if (known.file === null) known.file = this.#openFile(path);
        push(members, known.run, stat);
        continue;
      }
      if (known !== undefined) this.#closeFile(known);
      fresh.set(pid, stat); // new, a reused pid, or re-classified
    }
    const classified = new Map<number, number | null>();
    for (const stat of fresh.values()) {
      const run = this.#classify(stat, roots, activeRuns, fresh, classified, 0);
      this.#known.set(stat.pid, { startTicks: stat.startTicks, run, seenPass: pass, file: null });
      if (run !== null) push(members, run, stat);
    }
    for (const [pid, known] of this.#known) {
      if (known.seenPass === pass) continue;
      this.#closeFile(known);
      this.#known.delete(pid);
    }
    for (const run of this.#rootStarts.keys())
      if (!activeRuns.has(run)) this.#rootStarts.delete(run);
    return { members, reads };
  }

  /** The run's root pid is held by another process than the root seen before. */
  #rootPidReused(run: number, rootPid: number, fresh: ReadonlyMap<number, ProcStat>): boolean {
    const start = this.#rootStarts.get(run);
    if (start === undefined) return false;
    const now = fresh.get(rootPid)?.startTicks ?? this.#known.get(rootPid)?.startTicks;
    return now !== undefined && now !== start;
  }

  #openFile(path: string): OpenFile | null {
    if (this.#openFiles >= MAX_OPEN_STAT_FILES) return null;
    const file = this.#source.open(path) ?? null;
    if (file !== null) this.#openFiles++;
    return file;
  }

  #closeFile(known: KnownProcess): void {
    if (known.file === null) return;
    known.file.close();
    known.file = null;
    this.#openFiles--;
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
    // The kernel never reuses a pid still in use as a session or group id, so a run's root pid
    // as session or pgrp means that run's session or group, unless the root exited and its pid
    // now belongs to another process (then that session is someone else's).
    let run: number | null = null;
    const byPid = roots.get(stat.pid);
    if (byPid !== undefined) {
      const start = this.#rootStarts.get(byPid);
      if (start === undefined) this.#rootStarts.set(byPid, stat.startTicks);
      if (start === undefined || start === stat.startTicks) run = byPid;
    }
    for (const id of [stat.session, stat.pgrp]) {
      const bySession = roots.get(id);
      if (run === null && bySession !== undefined && !this.#rootPidReused(bySession, id, fresh)) {
        run = bySession;
      }
    }
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
