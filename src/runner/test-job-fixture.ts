// Test support shared by the runner and reporter tests (no tests of its own; reached from other
// folders through runner/testing.ts): a fully resolved job with built-in defaults, fixture paths, an
// output sink and process probes.
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ResolvedJob } from '../config/index.js';
import { makeJob as makeDefaultJob, type MakeJobOverrides } from '../config/testing.js';

export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
export const NODE = process.execPath;

export function fixture(name: string): string {
  return FIXTURES + name;
}

/** A fully defaulted job running the exit-with fixture once (@reboot, local zone). */
export function makeJob(overrides: MakeJobOverrides = {}): ResolvedJob {
  return makeDefaultJob({
    name: 'test-job',
    command: { kind: 'argv', argv: [NODE, fixture('exit-with.js'), '0'] },
    schedule: '@reboot',
    timezone: null,
    ...overrides,
  });
}

/** A writable that remembers everything written to it, as text. */
export class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    callback();
  }
}

/** Linux PF_EXITING: the task has entered do_exit() and will never run user code again. */
const PF_EXITING = 0x4;

/**
 * True while `pid` exists and is not on its way out (exiting, or a zombie waiting to be reaped).
 * A killed process closes its pipes before it turns into a zombie, so "exiting" counts as gone.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // Fields after the parenthesised command: state ppid pgrp session tty_nr tpgid flags ...
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const flags = Number(fields[6]);
  if (state === 'Z' || state === 'X' || (flags & PF_EXITING) !== 0) return false;
  return !hasPendingSigkill(pid);
}

/**
 * A SIGKILL sent but not yet acted on (the process was not scheduled since): it will never run
 * user code again either. Signal 9 is bit 8 of the pending masks.
 */
function hasPendingSigkill(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return true;
  }
  for (const line of status.split('\n')) {
    const match = /^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/.exec(line);
    if (match?.[1] !== undefined && (BigInt(`0x${match[1]}`) & 0x100n) !== 0n) return true;
  }
  return false;
}
