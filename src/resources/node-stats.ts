// This node's CPU and memory (docs/http-api.md "GET /node" `resources`), as one plain value that the
// /node route, the /node/history ring and (later) the gossip node-stats header all read. CPU %
// is measured between two readings (the first reading after start is 0); a reading younger than
// MIN_REFRESH_MS is served again instead of measuring over a few milliseconds, so polling
// clients cost nothing. Under cgroup v2 limits (cgroup.ts) memory and CPU describe the slice.
// Must not: throw (an unreadable /proc makes the reading null: "host sampling unavailable").
import type { Clock } from '../common/index.js';
import { locateCgroupLimits, readCgroupUsage, type CgroupLimitPaths } from './cgroup.js';
import { createSystemProcSource, type ProcSource } from './proc-source.js';
import { parseProcStat } from './proc-stat.js';
import { readSystemConstants, type SystemConstants } from './system-constants.js';

/** The node's resources (the wire object is rendered by http/). */
export interface NodeResources {
  /** Busy share of the node's (or the slice's) CPUs since the previous reading, 0–100. */
  readonly cpuPercent: number;
  /** CPUs of the node, or the slice's CPU limit rounded up. */
  readonly cpuCount: number;
  readonly memPercent: number;
  readonly memUsedBytes: number;
  readonly memTotalBytes: number;
  /** The daemon process itself (best effort: absent when /proc/self cannot be read). */
  readonly procRssBytes?: number;
  /** The daemon's CPU since the previous reading; 100 = one core. */
  readonly procCpuPercent?: number;
}

export interface NodeStatsDeps {
  readonly clock: Clock;
  readonly source?: ProcSource;
  readonly procRoot?: string;
  readonly constants?: SystemConstants;
}

/** Readings closer together than this are served from the previous one. */
export const MIN_REFRESH_MS = 1_000;

/** What CPU % is measured from: the host's jiffies, or the slice's usage against its limit. */
type CpuCounter =
  | { readonly kind: 'host'; readonly busy: number; readonly total: number }
  | { readonly kind: 'slice'; readonly usageMicros: number; readonly cores: number };

interface Baseline {
  readonly atMs: number;
  readonly cpu: CpuCounter;
  readonly procTicks: number | null;
}

/** Busy share between two counters, 0 when they are not comparable. */
function cpuPercentBetween(previous: Baseline, cpu: CpuCounter, nowMs: number): number {
  if (previous.cpu.kind === 'host' && cpu.kind === 'host') {
    return percent(cpu.busy - previous.cpu.busy, cpu.total - previous.cpu.total);
  }
  if (previous.cpu.kind === 'slice' && cpu.kind === 'slice') {
    const capacityMicros = (nowMs - previous.atMs) * 1000 * cpu.cores;
    return percent(cpu.usageMicros - previous.cpu.usageMicros, capacityMicros);
  }
  return 0;
}

/** `cpu  user nice system idle iowait irq softirq steal ...` → busy and total jiffies, CPU count. */
export function parseHostCpu(stat: string): { busy: number; total: number; cpus: number } | null {
  const lines = stat.split('\n');
  const first = lines[0];
  if (first === undefined || !first.startsWith('cpu ')) return null;
  const values = first.trim().split(/\s+/).slice(1, 9).map(Number);
  if (values.length < 4 || values.some((value) => !Number.isFinite(value))) return null;
  // guest and guest_nice are already inside user and nice.
  const total = values.reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  const cpus = lines.filter((line) => /^cpu\d+ /.test(line)).length;
  return { busy: total - idle, total, cpus: Math.max(1, cpus) };
}

/** MemTotal and MemAvailable (kB) → bytes; MemAvailable estimated on kernels before 3.14. */
export function parseMeminfo(
  meminfo: string,
): { totalBytes: number; availableBytes: number } | null {
  const kib = (key: string): number | null => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(meminfo);
    return match ? Number(match[1]) * 1024 : null;
  };
  const totalBytes = kib('MemTotal');
  if (totalBytes === null || totalBytes <= 0) return null;
  const availableBytes =
    kib('MemAvailable') ?? (kib('MemFree') ?? 0) + (kib('Buffers') ?? 0) + (kib('Cached') ?? 0);
  return { totalBytes, availableBytes };
}

function percent(part: number, whole: number): number {
  if (!(whole > 0)) return 0;
  return Math.round(Math.min(100, Math.max(0, (part / whole) * 100)) * 10) / 10;
}

export class NodeStatsReader {
  readonly #clock: Clock;
  readonly #source: ProcSource;
  readonly #procRoot: string;
  readonly #constants: SystemConstants;
  /** undefined = not located yet. */
  #cgroup: CgroupLimitPaths | null | undefined;
  #baseline: Baseline | null = null;
  #latest: { atMs: number; reading: NodeResources | null } | null = null;

  constructor(deps: NodeStatsDeps) {
    this.#clock = deps.clock;
    this.#source = deps.source ?? createSystemProcSource();
    this.#procRoot = deps.procRoot ?? '/proc';
    this.#constants = deps.constants ?? readSystemConstants(this.#source, this.#procRoot);
  }

  /** The newest reading without measuring (null before the first, or when unavailable). */
  latest(): NodeResources | null {
    return this.#latest?.reading ?? null;
  }

  /** A reading (a fresh one unless the previous is younger than MIN_REFRESH_MS). */
  read(): NodeResources | null {
    const nowMs = this.#clock.monotonic();
    if (this.#latest !== null && nowMs - this.#latest.atMs < MIN_REFRESH_MS) {
      return this.#latest.reading;
    }
    const reading = this.#measure(nowMs);
    this.#latest = { atMs: nowMs, reading };
    return reading;
  }

  #measure(nowMs: number): NodeResources | null {
    const root = this.#procRoot;
    const statText = this.#source.readText(`${root}/stat`);
    const meminfoText = this.#source.readText(`${root}/meminfo`);
    const host = statText === undefined ? null : parseHostCpu(statText);
    const memory = meminfoText === undefined ? null : parseMeminfo(meminfoText);
    if (host === null || memory === null) return null;
    this.#cgroup ??= locateCgroupLimits(this.#source, host.cpus, root);
    const slice = this.#cgroup === null ? null : readCgroupUsage(this.#source, this.#cgroup);

    // CPU: the slice's usage against its limit, else the host's busy jiffies.
    const sliceCpu = slice?.cpu ?? null;
    const cpu: CpuCounter =
      sliceCpu === null
        ? { kind: 'host', busy: host.busy, total: host.total }
        : { kind: 'slice', usageMicros: sliceCpu.usageMicros, cores: sliceCpu.cores };
    const cpuCount = sliceCpu === null ? host.cpus : Math.max(1, Math.ceil(sliceCpu.cores - 1e-9));
    // Memory: the slice's working set against its limit (never above the host's), else the host.
    let memTotalBytes = memory.totalBytes;
    let memUsedBytes = memory.totalBytes - memory.availableBytes;
    const sliceMemory = slice?.memory ?? null;
    if (sliceMemory !== null && sliceMemory.limitBytes < memory.totalBytes) {
      memTotalBytes = sliceMemory.limitBytes;
      memUsedBytes = Math.min(sliceMemory.usedBytes, sliceMemory.limitBytes);
    }

    const selfText = this.#source.readText(`${root}/self/stat`);
    const self = selfText === undefined ? undefined : parseProcStat(selfText);
    const procTicks = self === undefined ? null : self.userTicks + self.systemTicks;

    const previous = this.#baseline;
    const cpuPercent = previous === null ? 0 : cpuPercentBetween(previous, cpu, nowMs);
    this.#baseline = { atMs: nowMs, cpu, procTicks };

    const reading: {
      -readonly [K in keyof NodeResources]: NodeResources[K];
    } = {
      cpuPercent,
      cpuCount,
      memPercent: percent(memUsedBytes, memTotalBytes),
      memUsedBytes,
      memTotalBytes,
    };
    if (self !== undefined) {
      reading.procRssBytes = self.rssPages * this.#constants.pageSizeBytes;
      if (previous !== null && previous.procTicks !== null && procTicks !== null) {
        const seconds = (nowMs - previous.atMs) / 1000;
        const cpuSeconds = (procTicks - previous.procTicks) / this.#constants.clockTicksPerSecond;
        reading.procCpuPercent = seconds > 0 ? Math.round((cpuSeconds / seconds) * 1000) / 10 : 0;
      } else {
        reading.procCpuPercent = 0;
      }
    }
    return reading;
  }
}
