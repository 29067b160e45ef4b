// The daemon's cgroup v2 limits, for node stats that describe the slice the daemon (and every
// job it spawns, which inherit its cgroup) may use rather than the whole host (docs/http-api.md "GET
// /node"). The cgroup is found once, from /proc/self/mountinfo (the cgroup2 mount) and
// /proc/self/cgroup (the `0::` line); its limits are looked up from it to the mount's root:
// for memory the tightest `memory.max`, for CPU the tightest `cpu.max` quota or the cgroup's
// `cpuset.cpus.effective` when it allows fewer CPUs than the host has. Usage is then read from
// the cgroup that holds the limit (memory.current less inactive_file from memory.stat, the
// "working set"; cpu.stat usage_usec). Memory and CPU are decided independently.
// Not honoured: cgroup v1 controllers (a v1 or hybrid host reports the host's figures).
import type { ProcSource } from './proc-source.js';

/** Where the daemon's cgroup v2 limits live; null parts = not limited. */
export interface CgroupLimitPaths {
  /** The cgroup directory with the tightest memory.max, and that limit. */
  readonly memory: { readonly dir: string; readonly limitBytes: number } | null;
  /** The cgroup to read cpu.stat from, and the CPUs it may use (may be fractional). */
  readonly cpu: { readonly dir: string; readonly cores: number } | null;
}

export interface CgroupUsage {
  readonly memory: { readonly limitBytes: number; readonly usedBytes: number } | null;
  readonly cpu: { readonly cores: number; readonly usageMicros: number } | null;
}

/** Undo mountinfo's octal escapes (`\040` is a space). */
function unescapeMountPath(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_match, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

/** The cgroup2 mount: its mount point and the cgroup path it shows as its root. */
export function findCgroup2Mount(mountinfo: string): { point: string; root: string } | null {
  for (const line of mountinfo.split('\n')) {
    const separator = line.indexOf(' - ');
    if (separator < 0) continue;
    const [fsType] = line.slice(separator + 3).split(' ');
    if (fsType !== 'cgroup2') continue;
    const fields = line.slice(0, separator).split(' ');
    const root = fields[3];
    const point = fields[4];
    if (root !== undefined && point !== undefined) {
      return { point: unescapeMountPath(point), root: unescapeMountPath(root) };
    }
  }
  return null;
}

/** The `0::<path>` line of /proc/self/cgroup (the unified hierarchy). */
export function unifiedCgroupPath(cgroupFile: string): string | null {
  for (const line of cgroupFile.split('\n')) {
    if (line.startsWith('0::')) return line.slice(3).trim() || '/';
  }
  return null;
}

/** CPUs in a cpuset list such as `0-3,6,8-9`; null when it does not parse. */
export function countCpuList(list: string): number | null {
  const text = list.trim();
  if (text === '') return null;
  let count = 0;
  for (const part of text.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) return null;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) return null;
    count += last - first + 1;
  }
  return count;
}

/** `max` or a byte count. */
function parseMemoryMax(text: string | undefined): number | null {
  const value = text?.trim();
  if (value === undefined || value === 'max' || !/^\d+$/.test(value)) return null;
  return Number(value);
}

/** `max 100000` or `<quota> <period>`: the CPUs the quota allows. */
function parseCpuMax(text: string | undefined): number | null {
  const [quota, period] = text?.trim().split(/\s+/) ?? [];
  if (quota === undefined || quota === 'max' || period === undefined) return null;
  const cores = Number(quota) / Number(period);
  return Number.isFinite(cores) && cores > 0 ? cores : null;
}

/** `key value` lines (memory.stat, cpu.stat) → the value of `key`. */
export function readKeyedValue(text: string | undefined, key: string): number | null {
  if (text === undefined) return null;
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(0, space) === key) {
      const value = Number(line.slice(space + 1));
      return Number.isFinite(value) ? value : null;
    }
  }
  return null;
}

/** Locate the limits once (null = no cgroup v2 hierarchy readable). */
export function locateCgroupLimits(
  source: ProcSource,
  hostCpus: number,
  procRoot = '/proc',
): CgroupLimitPaths | null {
  const mountinfo = source.readText(`${procRoot}/self/mountinfo`);
  const cgroupFile = source.readText(`${procRoot}/self/cgroup`);
  if (mountinfo === undefined || cgroupFile === undefined) return null;
  const mount = findCgroup2Mount(mountinfo);
  const path = unifiedCgroupPath(cgroupFile);
  if (mount === null || path === null) return null;
  // Inside a cgroup namespace the path is relative to the mount's root already.
  const relative =
    mount.root === '/' ? path : path.startsWith(mount.root) ? path.slice(mount.root.length) : '/';
  const own = `${mount.point.replace(/\/$/, '')}${relative === '/' ? '' : relative}`;
  const chain: string[] = [];
  for (let dir = own; ; dir = dir.slice(0, dir.lastIndexOf('/'))) {
    chain.push(dir);
    if (dir.length <= mount.point.length || !dir.includes('/')) break;
  }
  let memory: CgroupLimitPaths['memory'] = null;
  let cpu: CgroupLimitPaths['cpu'] = null;
  for (const dir of chain) {
    const limitBytes = parseMemoryMax(source.readText(`${dir}/memory.max`));
    if (limitBytes !== null && (memory === null || limitBytes < memory.limitBytes)) {
      memory = { dir, limitBytes };
    }
    const cores = parseCpuMax(source.readText(`${dir}/cpu.max`));
    if (cores !== null && (cpu === null || cores < cpu.cores)) cpu = { dir, cores };
  }
  const cpusetText = source.readText(`${own}/cpuset.cpus.effective`);
  const cpuset = cpusetText === undefined ? null : countCpuList(cpusetText);
  if (cpuset !== null && cpuset < hostCpus && (cpu === null || cpuset < cpu.cores)) {
    cpu = { dir: own, cores: cpuset };
  }
  if (memory === null && cpu === null) return null;
  return { memory, cpu };
}

/** Read the current usage against the located limits (a part that cannot be read is null). */
export function readCgroupUsage(source: ProcSource, paths: CgroupLimitPaths): CgroupUsage {
  let memory: CgroupUsage['memory'] = null;
  if (paths.memory !== null) {
    const current = Number(source.readText(`${paths.memory.dir}/memory.current`)?.trim());
    if (Number.isFinite(current)) {
      const inactive =
        readKeyedValue(source.readText(`${paths.memory.dir}/memory.stat`), 'inactive_file') ?? 0;
      memory = {
        limitBytes: paths.memory.limitBytes,
        usedBytes: Math.max(0, current - inactive),
      };
    }
  }
  let cpu: CgroupUsage['cpu'] = null;
  if (paths.cpu !== null) {
    const usageMicros = readKeyedValue(source.readText(`${paths.cpu.dir}/cpu.stat`), 'usage_usec');
    if (usageMicros !== null) cpu = { cores: paths.cpu.cores, usageMicros };
  }
  return { memory, cpu };
}
