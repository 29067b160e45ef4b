// Drives the real, built `yacron2` CLI for end-to-end tests: temp config dirs, a spawned daemon
// whose output lines can be awaited (bounded waits, never sleeps), and clean teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';

export const CLI = resolve(import.meta.dirname, '../../bin/yacron2.js');

export async function makeTempDir(prefix = 'yacron2-e2e-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export async function writeConfig(dir: string, yaml: string, name = 'jobs.yaml'): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, yaml);
  return path;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the CLI to completion (for -v, --job-set-id, next, …). */
export async function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

interface Waiter {
  readonly pattern: RegExp;
  readonly resolve: (line: string) => void;
}

/** A running daemon whose stdout+stderr lines can be awaited. */
export class DaemonProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  #waiters = new Set<Waiter>();
  #exited: Promise<number | null>;

  constructor(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
    this.child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      let partial = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) this.#push(line);
      });
    }
    this.#exited = once(this.child, 'close').then(([code]) => code as number | null);
  }

  #push(line: string): void {
    this.lines.push(line);
    for (const waiter of [...this.#waiters]) {
      if (waiter.pattern.test(line)) {
        this.#waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  }

  /** Resolve with the first line (past or future) matching `pattern`; reject after timeoutMs. */
  waitForLine(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const seen = this.lines.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    return this.waitForNewLine(pattern, timeoutMs);
  }

  /** Resolve with the next line from now on matching `pattern`. */
  waitForNewLine(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; output so far:\n${this.lines.join('\n')}`));
      }, timeoutMs);
      const waiter: Waiter = {
        pattern,
        resolve: (line) => {
          clearTimeout(timer);
          resolvePromise(line);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  countLines(pattern: RegExp): number {
    return this.lines.filter((line) => pattern.test(line)).length;
  }

  /** Send a signal and wait for exit (SIGKILL after timeoutMs). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }

  exited(): Promise<number | null> {
    return this.#exited;
  }
}

/** True when a process with this pid exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
