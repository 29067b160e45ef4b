// `topology: auto`: decide whether a store path is on a shared (network) filesystem by the type
// /proc/mounts lists for the longest mount point containing it. Platforms without /proc/mounts
// (macOS, Windows) resolve to single-node. Must not: write anything.
import { readFile, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import type { StateTopology, StateTopologySetting } from './types.js';

export interface MountEntry {
  readonly mountPoint: string;
  readonly fsType: string;
}

/** Network filesystems several hosts can mount at once (fuse.* covers sshfs, s3fs, gcsfuse...). */
const SHARED_FS_TYPES = new Set([
  'nfs',
  'nfs4',
  'efs',
  'cifs',
  'smb3',
  'smbfs',
  'ceph',
  'glusterfs',
  'lustre',
  'gpfs',
  'afs',
  'beegfs',
]);

export function isSharedFsType(fsType: string): boolean {
  return SHARED_FS_TYPES.has(fsType) || fsType.startsWith('fuse.');
}

/** /proc/mounts escapes space, tab, newline and backslash as octal (\040 ...). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(Number.parseInt(octal, 8)),
  );
}

export function parseProcMounts(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const mountPoint = fields[1];
    const fsType = fields[2];
    if (mountPoint === undefined || fsType === undefined) continue;
    entries.push({ mountPoint: unescapeMountField(mountPoint), fsType });
  }
  return entries;
}

/** The mount holding `absolutePath`: the longest mount point that is a path prefix (last wins). */
export function findMount(
  entries: readonly MountEntry[],
  absolutePath: string,
): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const entry of entries) {
    const point = entry.mountPoint;
    const contains =
      point === '/' ||
      absolutePath === point ||
      absolutePath.startsWith(point.endsWith('/') ? point : `${point}/`);
    if (contains && (!best || point.length >= best.mountPoint.length)) best = entry;
  }
  return best;
}

/** The nearest existing ancestor's real path (the store directory may not exist yet). */
async function realExistingPath(target: string): Promise<string> {
  let current = path.resolve(target);
  for (;;) {
    try {
      return await realpath(current);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

export interface TopologyResolution {
  readonly topology: StateTopology;
  readonly setting: StateTopologySetting;
  /** The probed filesystem type (auto on Linux only). */
  readonly fsType?: string;
}

export interface TopologyProbeDeps {
  /** Reads /proc/mounts; rejects where there is none. */
  readonly readMounts?: () => Promise<string>;
  /** Resolves symlinks of the (possibly not yet created) store path. */
  readonly realPath?: (storePath: string) => Promise<string>;
}

export async function resolveTopology(
  setting: StateTopologySetting,
  storePath: string,
  deps: TopologyProbeDeps = {},
): Promise<TopologyResolution> {
  if (setting !== 'auto') return { topology: setting, setting };
  const readMounts = deps.readMounts ?? (() => readFile('/proc/mounts', 'utf8'));
  let text: string;
  try {
    text = await readMounts();
  } catch {
    return { topology: 'single-node', setting };
  }
  const mount = findMount(
    parseProcMounts(text),
    await (deps.realPath ?? realExistingPath)(storePath),
  );
  if (!mount) return { topology: 'single-node', setting };
  return {
    topology: isSharedFsType(mount.fsType) ? 'shared' : 'single-node',
    setting,
    fsType: mount.fsType,
  };
}
