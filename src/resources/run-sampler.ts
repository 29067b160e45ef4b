// Samples the process trees of every monitored run (`monitorResources`) with one pass over
// /proc per tick shared by all of them. Runs sample on a common grid: a run with interval I is
// sampled at the multiples of I on the monotonic clock, so every run with the same interval
// shares one pass whenever it started; a new run's first sample comes on a 250 ms grid
// (coalescing a burst of launches into one pass) and a later one is never taken sooner than
// half an interval after the previous. Each pass also folds the tree changes of runs that are
// not due into their CPU accounting (a process that appears and exits between two of a run's
// samples still counts). CPU % is measured over the actual time between two samples.
// Must not: throw from the timer (a failed pass is logged once and the run gets no sample);
// keep a timer armed while no run is monitored.
import { describeError, type Clock, type TimerHandle } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { createSystemProcSource, type ProcSource } from './proc-source.js';
import { ProcessScanner } from './process-scan.js';
import type { CurrentUsage, LiveRunUsage, RunUsage } from './run-usage.js';
import { readSystemConstants, type SystemConstants } from './system-constants.js';
import { TreeCpu } from './tree-cpu.js';
import { UsageSeries } from './usage-series.js';

/** What the sampler needs to know about a run (its config's monitorResources, its process). */
export interface MonitoredRun {
  readonly runId: string;
  readonly jobName: string;
  /** The run's root process (it leads its own session and process group). */
  readonly pid: number;
  readonly startedAtMs: number;
  readonly intervalMs: number;
  /** Most series points kept (monitorResources.history). */
  readonly history: number;
}

export interface RunSamplerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Default: the real /proc. */
  readonly source?: ProcSource;
  readonly procRoot?: string;
  /** Default: read from /proc/self/auxv. */
  readonly constants?: SystemConstants;
  /** Called after every pass (tests wait on it; bench/ counts passes). */
  readonly onPass?: () => void;
}

/** Grid of a new run's first sample. */
export const FIRST_SAMPLE_GRID_MS = 250;

/** Counters of the sampler's own work (bench/, tests). */
export interface SamplerStats {
  readonly passes: number;
  /** /proc/<pid>/stat files read over all passes. */
  readonly reads: number;
}

interface Tracked {
  readonly run: MonitoredRun;
  readonly key: number;
  readonly cpu: TreeCpu;
  readonly series: UsageSeries;
  nextDueMs: number;
  lastSampleMs: number;
  lastCpuSeconds: number;
  maxRssBytes: number;
  samples: number;
  current: CurrentUsage | null;
}

/** The first multiple of `step` strictly after `afterMs`. */
function nextGridPoint(afterMs: number, step: number): number {
  return (Math.floor(afterMs / step) + 1) * step;
}

export class RunSampler implements Disposable {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #scanner: ProcessScanner;
  readonly #constants: SystemConstants;
  readonly #onPass: (() => void) | undefined;
  readonly #runs = new Map<string, Tracked>();
  #nextKey = 1;
  #rescan = false;
  #timer: { handle: TimerHandle; dueMs: number } | null = null;
  #passes = 0;
  #reads = 0;
  #warned = false;
  #closed = false;

  constructor(deps: RunSamplerDeps) {
    const source = deps.source ?? createSystemProcSource();
    const procRoot = deps.procRoot ?? '/proc';
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#scanner = new ProcessScanner(source, procRoot);
    this.#constants = deps.constants ?? readSystemConstants(source, procRoot);
    this.#onPass = deps.onPass;
  }

  get stats(): SamplerStats {
    return { passes: this.#passes, reads: this.#reads };
  }

  /** Start sampling a run (its process was just spawned). A second start of the run is ignored. */
  start(run: MonitoredRun): void {
    if (this.#closed || this.#runs.has(run.runId)) return;
    const nowMs = this.#clock.monotonic();
    const firstStep = Math.min(run.intervalMs, FIRST_SAMPLE_GRID_MS);
    this.#runs.set(run.runId, {
      run,
      key: this.#nextKey++,
      cpu: new TreeCpu(),
      series: new UsageSeries(run.history),
      nextDueMs: nextGridPoint(nowMs + firstStep / 2, firstStep),
      lastSampleMs: nowMs,
      lastCpuSeconds: 0,
      maxRssBytes: 0,
      samples: 0,
      current: null,
    });
    this.#rescan = true;
    this.#arm();
  }

  /** Stop sampling a run; its final usage, or undefined when it was not sampled. */
  stop(runId: string): RunUsage | undefined {
    const tracked = this.#runs.get(runId);
    if (tracked === undefined) return undefined;
    this.#runs.delete(runId);
    if (this.#runs.size === 0) {
      this.#disarm();
      this.#scanner.reset();
    } else {
      this.#arm();
    }
    return this.#usage(tracked);
  }

  /** A monitored run still running; undefined when it is not sampled. */
  live(runId: string): LiveRunUsage | undefined {
    const tracked = this.#runs.get(runId);
    return tracked === undefined ? undefined : this.#live(tracked);
  }

  /** The job's monitored runs still running, oldest first. */
  liveOfJob(jobName: string): LiveRunUsage[] {
    const out: LiveRunUsage[] = [];
    for (const tracked of this.#runs.values()) {
      if (tracked.run.jobName === jobName) out.push(this.#live(tracked));
    }
    return out;
  }

  close(): void {
    this.#closed = true;
    this.#runs.clear();
    this.#disarm();
    this.#scanner.reset();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #live(tracked: Tracked): LiveRunUsage {
    const { run } = tracked;
    return {
      runId: run.runId,
      jobName: run.jobName,
      pid: run.pid,
      startedAtMs: run.startedAtMs,
      current: tracked.current,
      usage: this.#usage(tracked),
    };
  }

  #usage(tracked: Tracked): RunUsage {
    const hz = this.#constants.clockTicksPerSecond;
    const { userTicks, systemTicks } = tracked.cpu;
    return {
      cpuUserSeconds: userTicks / hz,
      cpuSystemSeconds: systemTicks / hz,
      cpuTotalSeconds: (userTicks + systemTicks) / hz,
      maxRssBytes: tracked.maxRssBytes,
      samples: tracked.samples,
      series: tracked.series.points(),
    };
  }

  #arm(): void {
    let dueMs = Infinity;
    for (const tracked of this.#runs.values()) dueMs = Math.min(dueMs, tracked.nextDueMs);
    if (dueMs === Infinity) {
      this.#disarm();
      return;
    }
    if (this.#timer?.dueMs === dueMs) return;
    this.#disarm();
    const handle = this.#clock.setTimer(() => {
      this.#timer = null;
      this.#pass();
      if (!this.#closed) this.#arm();
      this.#onPass?.();
    }, dueMs - this.#clock.monotonic());
    this.#timer = { handle, dueMs };
  }

  #disarm(): void {
    this.#timer?.handle.cancel();
    this.#timer = null;
  }

  #pass(): void {
    const nowMs = this.#clock.monotonic();
    const roots = new Map<number, number>();
    const active = new Set<number>();
    for (const tracked of this.#runs.values()) {
      roots.set(tracked.run.pid, tracked.key);
      active.add(tracked.key);
    }
    let result;
    try {
      result = this.#scanner.scan(roots, active, this.#rescan);
    } catch (error) {
      result = undefined;
      this.#warnOnce(error);
    }
    this.#passes++;
    if (result === undefined) {
      this.#warnOnce(undefined);
      for (const tracked of this.#runs.values()) {
        if (tracked.nextDueMs <= nowMs) {
          tracked.nextDueMs = nextGridPoint(
            nowMs + tracked.run.intervalMs / 2,
            tracked.run.intervalMs,
          );
        }
      }
      return;
    }
    this.#rescan = false;
    this.#reads += result.reads;
    const wallMs = this.#clock.now();
    const { clockTicksPerSecond: hz, pageSizeBytes } = this.#constants;
    for (const tracked of this.#runs.values()) {
      const members = result.members.get(tracked.key) ?? [];
      tracked.cpu.update(members);
      if (tracked.nextDueMs > nowMs) continue;
      let rssPages = 0;
      for (const stat of members) rssPages += stat.rssPages;
      const rssBytes = rssPages * pageSizeBytes;
      const cpuSeconds = (tracked.cpu.userTicks + tracked.cpu.systemTicks) / hz;
      const elapsedSeconds = (nowMs - tracked.lastSampleMs) / 1000;
      const cpuPercent =
        elapsedSeconds > 0 ? ((cpuSeconds - tracked.lastCpuSeconds) / elapsedSeconds) * 100 : 0;
      tracked.series.add(wallMs, cpuPercent, rssBytes);
      tracked.maxRssBytes = Math.max(tracked.maxRssBytes, rssBytes);
      tracked.samples++;
      tracked.current = { cpuSeconds, cpuPercent, rssBytes };
      tracked.lastSampleMs = nowMs;
      tracked.lastCpuSeconds = cpuSeconds;
      const { intervalMs } = tracked.run;
      tracked.nextDueMs = nextGridPoint(nowMs + intervalMs / 2, intervalMs);
    }
  }

  #warnOnce(error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    const why = error === undefined ? '/proc cannot be listed' : describeError(error);
    this.#logger.warn(`Cannot sample the resources of monitored jobs: ${why}`);
  }
}
