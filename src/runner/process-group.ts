// Signals to a run's whole process group (every run is a session leader, so pgid = pid), and the
// mapping of a child's exit to yacron2's exit codes.
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';

export type GroupSignalResult = 'sent' | 'gone' | 'denied';

/** Send `signal` to process group `pgid`; never throws. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals): GroupSignalResult {
  try {
    process.kill(-pgid, signal);
    return 'sent';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? 'gone' : 'denied';
  }
}

/** >= 0 exit status, or −N for a death by signal N (docs/configuration.md "Failure detection"). */
export function exitCodeFromStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal !== null) {
    const number = (constants.signals as Partial<Record<NodeJS.Signals, number>>)[signal];
    if (number !== undefined) return -number;
  }
  return -1;
}

/**
 * True when `pid` no longer runs: no such process, or a zombie nobody reaped yet (a run whose
 * parent, the spawn helper, died is adopted and reaped by another process).
 */
export function isPidGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
