// /proc readings of another process for the daemon benchmarks: CPU ticks, resident memory, the
// daemon's spawn helper child; and wall-clock waits (the workers measure real daemons in real
// time, so they use Date.now, never the daemon's clock).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ on Linux). */
export const TICKS_PER_SECOND = 100;

/** utime + stime of `pid`, in clock ticks (all its threads; children not included). */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

export interface Memory {
  /** VmRSS: every resident page, file-backed ones (the node binary) included. */
  readonly rssKb: number;
  /** RssAnon: the process's own heap, stacks and anonymous mappings. */
  readonly rssAnonKb: number;
}

export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match?.[1] === undefined ? Number.NaN : Number(match[1]);
  };
  return { rssKb: field('VmRSS'), rssAnonKb: field('RssAnon') };
}

/** The pid of the daemon's spawn helper (a child whose command line names it), or null. */
export function helperPidOf(daemonPid: number): number | null {
  let children: string;
  try {
    children = readFileSync(`/proc/${daemonPid}/task/${daemonPid}/children`, 'utf8');
  } catch {
    return null;
  }
  for (const text of children.trim().split(/\s+/)) {
    if (text === '') continue;
    try {
      const cmdline = readFileSync(`/proc/${text}/cmdline`, 'utf8');
      if (cmdline.includes('spawn-helper')) return Number(text);
    } catch {
      // exited meanwhile
    }
  }
  return null;
}

export const delay = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Resolves at wall-clock epoch `ms` (or at once when it has passed). */
export function waitUntil(ms: number): Promise<void> {
  return delay(ms - Date.now());
}

/**
 * The daemon's environment: this one without YACRON2_SPAWN_HELPER for `default` (each checkout
 * on its own default path: builds compared side by side may differ), with it `0` for
 * `in-process` and `node` for `node-helper` (the Node spawn helper where the native one is the
 * default).
 */
export function daemonEnv(spawnPath: string): NodeJS.ProcessEnv {
  const { YACRON2_SPAWN_HELPER: _ignored, ...env } = process.env;
  if (spawnPath === 'default') return env;
  if (spawnPath === 'in-process') return { ...env, YACRON2_SPAWN_HELPER: '0' };
  if (spawnPath === 'node-helper') return { ...env, YACRON2_SPAWN_HELPER: 'node' };
  throw new Error(`Cannot start a bench daemon: unknown spawn path '${spawnPath}'`);
}

/**
 * The epoch ms of every `$EPOCHREALTIME` line the jobs print on `stdout` (other lines ignored),
 * appended as they arrive.
 */
export function collectStartInstants(stdout: Readable): number[] {
  const starts: number[] = [];
  let partial = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const value = Number(line.trim());
      if (line.trim() !== '' && Number.isFinite(value)) starts.push(value * 1000);
    }
  });
  return starts;
}

/**
 * The start lateness (ms after the scheduled second, ascending) of the runs of each instant: a
 * run counts in the latest instant at or before its start (the last takes everything after it).
 */
export function latenessPerInstant(
  starts: readonly number[],
  instantsS: readonly number[],
): number[][] {
  return instantsS.map((instantS, index) => {
    const fromMs = instantS * 1000;
    const untilMs = index + 1 < instantsS.length ? instantsS[index + 1]! * 1000 : Infinity;
    return starts
      .filter((ms) => ms >= fromMs && ms < untilMs)
      .map((ms) => ms - fromMs)
      .sort((a, b) => a - b);
  });
}

/** SIGTERM, up to 15 s for `exited` (the child's 'exit'), then SIGKILL if it is still running. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  child.kill('SIGTERM');
  await Promise.race([exited, delay(15_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
