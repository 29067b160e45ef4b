// The OS boot's identity for "@reboot once per OS boot" (docs/durable-state.md "@reboot once per
// OS boot"): Linux's exact boot id and the boot time derived from uptime, each when it can be
// read (a boot marker records both, as the reference does), else null (then every daemon start
// counts as a boot, the stateless behaviour). Reads files; never writes.
//
// YACRON2_BOOT_ID_FILE names a file whose trimmed content is the boot id, so end-to-end tests and
// containers can fake a reboot by rewriting one file. An override that cannot be read or is empty
// REJECTS instead of falling back to the real boot id: falling back would quietly test (or run)
// against the wrong source.
import { readFile as readFileFromDisk } from 'node:fs/promises';
import { systemClock, type Clock, YacronError, describeError } from '../common/index.js';

/** The environment variable naming a file that holds a fake boot id. */
export const BOOT_ID_FILE_ENV = 'YACRON2_BOOT_ID_FILE';
/** Linux: a random UUID chosen by the kernel at every boot. */
export const LINUX_BOOT_ID_PATH = '/proc/sys/kernel/random/boot_id';
/** POSIX with procfs: "<seconds since boot> <idle seconds>". */
export const PROC_UPTIME_PATH = '/proc/uptime';
/**
 * Boot times derived as wall clock − uptime wobble with rounding, clock slew and NTP steps; two
 * derivations this close are one boot (60 s, as the reference judges). A wall-clock step larger than this
 * between daemon starts reads as a reboot: the @reboot job runs again (at-least-once).
 */
export const BOOT_TIME_TOLERANCE_MS = 60_000;

/** What a boot marker persists and sameBoot compares (at least one of the two is non-null). */
export interface BootFields {
  readonly bootId: string | null;
  /** Epoch ms: wall clock at the read minus the uptime. */
  readonly bootTimeMs: number | null;
}

export interface BootIdentityDeps {
  /** Reads a whole file as UTF-8 (default: node:fs/promises). */
  readonly readFile?: (path: string) => Promise<string>;
  /** The wall clock the uptime is subtracted from (default: systemClock). */
  readonly clock?: Clock;
  /** Default LINUX_BOOT_ID_PATH. */
  readonly bootIdPath?: string;
  /** Default PROC_UPTIME_PATH. */
  readonly uptimePath?: string;
  /** Consulted for BOOT_ID_FILE_ENV only; an empty value counts as unset. Default: none. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Parses /proc/uptime's first field (seconds, with a fraction); undefined when malformed. */
function parseUptimeSeconds(content: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)(?:\s|$)/.exec(content);
  if (!match?.[1]) return undefined;
  const seconds = Number(match[1]);
  return Number.isFinite(seconds) ? seconds : undefined;
}

async function readOverride(
  path: string,
  readFile: (path: string) => Promise<string>,
): Promise<string> {
  let content: string;
  try {
    content = await readFile(path);
  } catch (error) {
    throw new YacronError(
      'YC_ERR_CONFIG_IO',
      `Cannot read the boot id file ${BOOT_ID_FILE_ENV}=${path}: ${describeError(error)}`,
      { cause: error },
    );
  }
  const id = content.trim();
  if (id === '') {
    throw new YacronError(
      'YC_ERR_CONFIG_INVALID',
      `Cannot use the boot id file ${BOOT_ID_FILE_ENV}=${path}: it is empty`,
    );
  }
  return id;
}

/** Content of `path`, or undefined when it cannot be read (absent on this platform). */
async function readOptional(
  path: string,
  readFile: (path: string) => Promise<string>,
): Promise<string | undefined> {
  try {
    return await readFile(path);
  } catch {
    return undefined;
  }
}

/**
 * This OS boot's identity: the boot id (the BOOT_ID_FILE_ENV override, else Linux's) and the boot
 * time from /proc/uptime, each null when it cannot be read; null when neither can (macOS, the
 * BSDs, Windows: no procfs). Rejects only for a broken override (YC_ERR_CONFIG_IO unreadable,
 * YC_ERR_CONFIG_INVALID empty).
 */
export async function readBootIdentity(deps: BootIdentityDeps = {}): Promise<BootFields | null> {
  const readFile = deps.readFile ?? ((path: string) => readFileFromDisk(path, 'utf8'));
  const overridePath = deps.env?.[BOOT_ID_FILE_ENV];
  let bootId: string | null;
  if (overridePath !== undefined && overridePath !== '') {
    bootId = await readOverride(overridePath, readFile);
  } else {
    const linux = (await readOptional(deps.bootIdPath ?? LINUX_BOOT_ID_PATH, readFile))?.trim();
    bootId = linux === undefined || linux === '' ? null : linux;
  }
  const uptime = await readOptional(deps.uptimePath ?? PROC_UPTIME_PATH, readFile);
  const seconds = uptime === undefined ? undefined : parseUptimeSeconds(uptime);
  // Read the clock after the file, so the uptime is never younger than the wall time used.
  const clock = deps.clock ?? systemClock;
  const bootTimeMs = seconds === undefined ? null : Math.round(clock.now() - seconds * 1000);
  return bootId === null && bootTimeMs === null ? null : { bootId, bootTimeMs };
}

/**
 * Whether two identities (or markers read back) name the same OS boot, as the reference judges:
 * equal boot ids when both have one, else boot times at most BOOT_TIME_TOLERANCE_MS apart.
 */
export function sameBoot(a: BootFields, b: BootFields): boolean {
  if (a.bootId !== null && b.bootId !== null) return a.bootId === b.bootId;
  if (a.bootTimeMs === null || b.bootTimeMs === null) return false;
  return Math.abs(a.bootTimeMs - b.bootTimeMs) <= BOOT_TIME_TOLERANCE_MS;
}
