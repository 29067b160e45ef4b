// How a run's process gets started (docs/performance.md "The spawn path"): a Spawner returns
// something shaped like a ChildProcess. In-process it is Node's own spawn (the daemon forks);
// through the spawn helper the pid, the captured pipes and the exit arrive as messages, so `pid`
// and `stdout`/`stderr` may still be unset when spawn() returns: then 'spawn' says the pid is
// known and 'stdio' hands over each captured pipe. 'exit' and 'close' (exited and every
// captured pipe closed) and 'error' (could not start) mean what they mean for a ChildProcess.
import { spawn, type SpawnOptions } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { OutputStream } from './types.js';

export interface SpawnedChild {
  readonly pid?: number | undefined;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /**
   * Stops reading the captured pipes (a process outside the run's group holds them open); for a
   * ChildProcess, destroying `stdout` and `stderr` does it.
   */
  closeOutput?(): void;
  on(event: 'error', listener: (error: Error) => void): this;
  once(event: 'spawn', listener: () => void): this;
  on(event: 'stdio', listener: (stream: OutputStream, readable: Readable) => void): this;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(
    event: 'close',
    listener: (code: number | null, signal: NodeJS.Signals | null) => void,
  ): this;
}

export interface Spawner {
  /** 'in-process' or 'helper': which path this spawner takes (logs, tests). */
  readonly kind: SpawnPath;
  /** May throw like child_process.spawn; failures to start are 'error' events. */
  spawn(file: string, args: readonly string[], options: SpawnOptions): SpawnedChild;
}

export type SpawnPath = 'in-process' | 'helper';

/** Node's child_process.spawn in the daemon's own process: the fallback path. */
export const inProcessSpawner: Spawner = {
  kind: 'in-process',
  spawn: (file, args, options) => spawn(file, args, options),
};

/** Stops reading a run's captured pipes: they close, and 'close' follows once it has exited. */
export function closeOutput(child: SpawnedChild): void {
  if (child.closeOutput !== undefined) {
    child.closeOutput();
    return;
  }
  child.stdout?.destroy();
  child.stderr?.destroy();
}
