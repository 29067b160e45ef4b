// Drives the real, built `yacron2` CLI for end-to-end tests: temp config dirs, a spawned daemon
// whose output lines can be awaited, marker files that can be awaited, and clean teardown.
// Every wait is bounded and event-driven (output lines, fs.watch) with a short re-check as a
// backstop; nothing sleeps for a fixed time hoping that something happened meanwhile.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { once } from 'node:events';

/** The CLI under test; YACRON2_E2E_CLI points the suite at another build (e.g. a candidate fix). */
export const CLI =
  process.env.YACRON2_E2E_CLI ?? resolve(import.meta.dirname, '../../bin/yacron2.js');
export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const FIXTURES = resolve(import.meta.dirname, '../fixtures');

/** How long output is still read after the daemon exited (its pipes may be held by orphans). */
const STREAM_DRAIN_MS = 2_000;

/** The part of node:test's TestContext the helpers need (teardown registration). */
export interface TeardownContext {
  after(fn: () => unknown): void;
}

const teardowns = new WeakMap<TeardownContext, (() => unknown)[]>();

/**
 * Run `fn` when the test ends, in reverse order of registration (a temp dir registered first is
 * removed last, after the processes that use it are gone). A failing step does not stop the rest.
 */
export function defer(t: TeardownContext, fn: () => unknown): void {
  let stack = teardowns.get(t);
  if (!stack) {
    const fresh: (() => unknown)[] = [];
    teardowns.set(t, fresh);
    t.after(async () => {
      const errors: unknown[] = [];
      for (const step of fresh.reverse()) {
        try {
          await step();
        } catch (error) {
          errors.push(error);
        }
      }
      if (errors.length > 0) throw new AggregateError(errors, 'teardown failed');
    });
    stack = fresh;
  }
  stack.push(fn);
}

export async function makeTempDir(prefix = 'yacron2-e2e-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A fresh temp dir removed when the test ends. */
export async function useTempDir(t: TeardownContext): Promise<string> {
  const dir = await makeTempDir();
  defer(t, () => removeDir(dir));
  return dir;
}

/**
 * Write a config file atomically (temp file + rename), so a daemon checking for changes never
 * reads a half-written file. The temp name starts with `.`, which config directories skip.
 */
export async function writeConfig(
  dir: string,
  yaml: string,
  name = 'jobs.yaml',
  options: { mtimeSeconds?: number } = {},
): Promise<string> {
  const path = join(dir, name);
  const temp = join(dir, `.${name}.${process.pid}.tmp`);
  await writeFile(temp, yaml);
  if (options.mtimeSeconds !== undefined) {
    await utimes(temp, options.mtimeSeconds, options.mtimeSeconds);
  }
  await rename(temp, path);
  return path;
}

/** Single-quote a string for /bin/sh (for paths interpolated into job commands). */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface SpawnCliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Run the daemon in a UTS namespace of its own under this host name (`unshare -u`, root only):
   * the store names a host by the OS host name, so nodes sharing a store on one machine need
   * one each. See canSetHostName().
   */
  hostname?: string;
  /**
   * The program (and its leading arguments) run instead of `node bin/yacron2.js`: another
   * implementation that takes the same arguments (the fault harness's reference nodes).
   */
  command?: readonly string[];
}

/** Whether this process may give a child its own host name (unshare -u; root on Linux). */
export function canSetHostName(): boolean {
  const probe = spawnSync('unshare', ['-u', 'hostname', 'yacron2-probe'], { stdio: 'ignore' });
  return probe.status === 0;
}

/**
 * Run the CLI to completion (for -v, --job-set-id, next, …). A CLI still running after
 * timeoutMs (say, a daemon started by mistake) is killed and reported as a failure.
 */
export async function runCli(
  args: readonly string[],
  options: SpawnCliOptions & { timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 15_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  if (timedOut) {
    throw new Error(
      `yacron2 ${args.join(' ')} did not finish; stdout:\n${stdout}\nstderr:\n${stderr}`,
    );
  }
  return { code, stdout, stderr };
}

/** One pino JSON line of the daemon's log. */
export interface LogRecord {
  readonly level: number;
  readonly time: number;
  readonly msg: string;
}

/** The parsed log record of a daemon output line, or null for job output and other text. */
export function parseLogLine(line: string): LogRecord | null {
  if (!line.startsWith('{')) return null;
  try {
    const record = JSON.parse(line) as Partial<LogRecord>;
    if (typeof record.msg !== 'string' || typeof record.time !== 'number') return null;
    return { level: record.level ?? 0, time: record.time, msg: record.msg };
  } catch {
    return null;
  }
}

interface Waiter {
  readonly matches: (line: string) => boolean;
  readonly resolve: (line: string) => void;
}

/** A running daemon whose stdout+stderr lines (job output and JSON log lines) can be awaited. */
export class DaemonProcess {
  readonly child: ChildProcess;
  /** stdout and stderr lines, interleaved as they arrived. */
  readonly lines: string[] = [];
  /** The stdout lines alone. */
  readonly stdoutLines: string[] = [];
  #waiters = new Set<Waiter>();
  #exited: Promise<number | null>;

  constructor(args: readonly string[], options: SpawnCliOptions = {}) {
    const program = options.command ?? [process.execPath, CLI];
    const command =
      options.hostname === undefined
        ? [...program, ...args]
        : // exec: the daemon keeps the pid the test signals.
          [
            'unshare',
            '-u',
            'sh',
            '-c',
            'hostname "$0" && exec "$@"',
            options.hostname,
            ...program,
            ...args,
          ];
    this.child = spawn(command[0]!, command.slice(1), {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const flushes: Promise<void>[] = [];
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      const isStdout = stream === this.child.stdout;
      let partial = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) this.#push(line, isStdout);
      });
      flushes.push(
        once(stream, 'end').then(() => {
          if (partial !== '') this.#push(partial, isStdout);
        }),
      );
    }
    // 'exit', not 'close': a job the daemon failed to kill may hold its stdout open for good.
    // The output is then read until the pipes close, for at most STREAM_DRAIN_MS.
    this.#exited = once(this.child, 'exit').then(async ([code]) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(flushes),
        new Promise((resolveDrain) => (timer = setTimeout(resolveDrain, STREAM_DRAIN_MS))),
      ]);
      clearTimeout(timer);
      return code as number | null;
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  #push(line: string, isStdout: boolean): void {
    this.lines.push(line);
    if (isStdout) this.stdoutLines.push(line);
    for (const waiter of [...this.#waiters]) {
      if (waiter.matches(line)) {
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
    return this.#waitFor((line) => pattern.test(line), String(pattern), timeoutMs);
  }

  /** Resolve with the first log record (past or future) whose msg matches `pattern`. */
  async waitForLog(pattern: RegExp, timeoutMs = 15_000): Promise<LogRecord> {
    const seen = this.logs().find((record) => pattern.test(record.msg));
    if (seen !== undefined) return seen;
    return this.waitForNewLog(pattern, timeoutMs);
  }

  /** Resolve with the next log record from now on whose msg matches `pattern`. */
  async waitForNewLog(pattern: RegExp, timeoutMs = 15_000): Promise<LogRecord> {
    const line = await this.#waitFor(
      (candidate) => {
        const record = parseLogLine(candidate);
        return record !== null && pattern.test(record.msg);
      },
      `a log message matching ${String(pattern)}`,
      timeoutMs,
    );
    return parseLogLine(line)!;
  }

  #waitFor(matches: (line: string) => boolean, what: string, timeoutMs: number): Promise<string> {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what}; output so far:\n${this.lines.join('\n')}`,
          ),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        matches,
        resolve: (line) => {
          clearTimeout(timer);
          resolvePromise(line);
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /** Every log record so far, in arrival order. */
  logs(): LogRecord[] {
    return this.lines.map(parseLogLine).filter((record) => record !== null);
  }

  /** Log messages so far matching `pattern`. */
  logMessages(pattern: RegExp): string[] {
    return this.logs()
      .map((record) => record.msg)
      .filter((msg) => pattern.test(msg));
  }

  countLines(pattern: RegExp): number {
    return this.lines.filter((line) => pattern.test(line)).length;
  }

  /** Index in `lines` of the first line matching `pattern` (-1 when none). */
  indexOfLine(pattern: RegExp): number {
    return this.lines.findIndex((line) => pattern.test(line));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Send a signal and wait for exit (SIGKILL after timeoutMs). Signal only after a line the
   * daemon logs from a timer (a cron fire, a retry, a reload): before its start-up turn ends, the
   * daemon has no SIGTERM/SIGINT handler yet (see the todo test in shutdown.test.ts).
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<number | null> {
    if (this.running) this.child.kill(signal);
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

  /**
   * Teardown after a failed test: SIGKILL the process group of every job the daemon still has
   * (each run leads its own group; through the spawn helper the jobs are the helper's children),
   * then the daemon itself. No-op once the daemon has exited.
   */
  async kill(): Promise<void> {
    if (!this.running) return;
    const children = childPidsOf(this.pid);
    for (const pid of [...children, ...children.flatMap(childPidsOf)]) signalGroup(pid, 'SIGKILL');
    await this.stop('SIGKILL', 5_000);
  }
}

/** Start the daemon with `args`; it is killed with its jobs at teardown if still running. */
export function startDaemon(
  t: TeardownContext,
  args: readonly string[],
  options: SpawnCliOptions = {},
): DaemonProcess {
  const daemon = new DaemonProcess(args, options);
  defer(t, () => daemon.kill());
  return daemon;
}

/** Kill these process groups (and the processes themselves) at teardown. */
export function killAtTeardown(t: TeardownContext, pids: () => readonly number[]): void {
  defer(t, () => {
    for (const pid of pids()) {
      signalGroup(pid, 'SIGKILL');
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // no such group
  }
}

/** Pids whose parent is `parentPid` (Linux /proc scan). */
export function childPidsOf(parentPid: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(Number(entry));
    if (stat !== null && stat.ppid === parentPid) pids.push(Number(entry));
  }
  return pids;
}

interface ProcStat {
  readonly state: string;
  readonly ppid: number;
  readonly flags: number;
}

function readProcStat(pid: number): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the parenthesised command: state ppid pgrp session tty_nr tpgid flags ...
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: Number(fields[1]), flags: Number(fields[6]) };
}

/** Linux PF_EXITING: the task has entered do_exit() and will never run user code again. */
const PF_EXITING = 0x4;

/**
 * True when a live process with this pid exists. A zombie (or a task already inside do_exit())
 * counts as gone: it will never run again, and orphans may wait a while for their reaper.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readProcStat(pid);
  if (stat === null) return process.platform !== 'linux';
  return stat.state !== 'Z' && stat.state !== 'X' && (stat.flags & PF_EXITING) === 0;
}

/**
 * Resolve once `check()` returns a value other than undefined/false; reject after timeoutMs.
 * For conditions with no event to wait on (a process disappearing, an HTTP answer that changes):
 * re-checked every intervalMs; `check` may be async.
 */
export async function waitUntil<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  { timeoutMs = 10_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, intervalMs));
  }
}

/** The file's content, or null when it does not exist (yet). */
export function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The complete (newline-terminated) lines of a file; [] when it does not exist. */
export function readLines(path: string): string[] {
  const content = readIfExists(path) ?? '';
  const lines = content.split('\n');
  lines.pop(); // the text after the last newline: empty, or a line still being written
  return lines;
}

/**
 * Resolve with the file's content once it exists and `accept(content)` holds; reject after
 * timeoutMs with the content seen last. Driven by fs.watch on the parent directory (the file may
 * not exist yet), re-checked every 200 ms as a backstop for missed notifications.
 */
export function waitForFile(
  path: string,
  accept: (content: string) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let watcher: FSWatcher | undefined;
    let finished = false;
    const finish = (error: Error | null, content = ''): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearInterval(backstop);
      watcher?.close();
      if (error) reject(error);
      else resolvePromise(content);
    };
    const check = (): void => {
      if (finished) return;
      let content: string | null;
      try {
        content = readIfExists(path);
      } catch (error) {
        finish(error as Error);
        return;
      }
      if (content !== null && accept(content)) finish(null, content);
    };
    const timer = setTimeout(() => {
      const content = readIfExists(path);
      finish(
        new Error(
          `timed out after ${timeoutMs} ms waiting for ${basename(path)}; ` +
            (content === null ? 'it does not exist' : `its content:\n${content}`),
        ),
      );
    }, timeoutMs);
    const backstop = setInterval(check, 200);
    try {
      watcher = watch(dirname(path), check);
      watcher.on('error', () => undefined);
    } catch {
      // the backstop keeps checking
    }
    check();
  });
}

/** Resolve with the file's complete lines once there are at least `count` of them. */
export async function waitForLines(
  path: string,
  count: number,
  timeoutMs = 15_000,
): Promise<string[]> {
  await waitForFile(path, (content) => content.split('\n').length - 1 >= count, timeoutMs);
  return readLines(path);
}

// ---- durable state (test/e2e/durable-*.test.ts) ------------------------------------------------
// The store is read straight from disk, so records can be awaited and inspected with the daemon
// running, killed or stopped; the control API is reached through the daemon's logged listen URL.

/**
 * Record file names (`<time %020.6f>-<12 hex instance>-<12-digit seq>.json`, the reference's
 * grammar) sort in append order for one writer.
 */
const STORE_RECORD_FILE = /^\d{13}\.\d{6}-[0-9a-f]{12}-\d{12}\.json$/;

/** The data of one store record (the `data` of `{"schemaVersion":"v1","data":{...}}`). */
export type StoreRecord = Readonly<Record<string, unknown>>;

/**
 * The directory of `stream` in the filesystem store at `storePath`. Only names whose parts use
 * [a-z0-9_-] are supported: those are stored as is, with the `/` percent-encoded (`%2F`).
 */
export function storeStreamDir(
  storePath: string,
  stream: string,
  deploymentId = 'default',
): string {
  if (!/^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/.test(stream)) {
    throw new Error(`storeStreamDir: use a plain lower-case stream name, not ${stream}`);
  }
  return join(storePath, deploymentId, 'records', stream.replaceAll('/', '%2F'));
}

/** Every record of `stream`, oldest first; [] when the stream does not exist (yet). */
export function readStoreStream(
  storePath: string,
  stream: string,
  deploymentId = 'default',
): StoreRecord[] {
  const dir = storeStreamDir(storePath, stream, deploymentId);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: StoreRecord[] = [];
  for (const name of names.filter((entry) => STORE_RECORD_FILE.test(entry)).sort()) {
    // Records land by rename (never half-written), but a prune may delete one meanwhile.
    const text = readIfExists(join(dir, name));
    if (text === null) continue;
    records.push((JSON.parse(text) as { data: StoreRecord }).data);
  }
  return records;
}

/** Epoch ms of a record's instant field (Python isoformat, UTC); throws when it is not one. */
export function recordMs(record: StoreRecord, field: string): number {
  const value = record[field];
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms))
    throw new Error(`${field} is not an instant: ${JSON.stringify(record)}`);
  return ms;
}

/**
 * The slot a ledger row's run was launched for: the newest of `slots` (epoch ms, ascending) at
 * or before its `started_at` (rows carry no slot; tests plan their slots seconds apart).
 */
export function slotOf(row: StoreRecord, slots: readonly number[]): number | undefined {
  const startedAtMs = recordMs(row, 'started_at');
  return slots.findLast((slotMs) => slotMs <= startedAtMs);
}

/** A crash-reconciled ledger row (outcome unknown, the reference's fail_reason). */
export const isReconciledRow = (row: StoreRecord): boolean =>
  row.outcome === 'unknown' &&
  typeof row.fail_reason === 'string' &&
  row.fail_reason.startsWith('run interrupted: no completion was recorded');

/**
 * The slots a job's missed-run catch-up backfilled, oldest first, from its `catchup/<job>`
 * checkpoints: a cycle opens with the watermark it starts from, and after each backfill a
 * checkpoint (`open`, or `close` after the last) moves the watermark to that backfill's slot (a
 * resumed cycle with nothing left closes at the watermark it resumed from).
 */
export function backfilledSlots(checkpoints: readonly StoreRecord[]): number[] {
  const slots: number[] = [];
  let open: number | null = null;
  for (const checkpoint of checkpoints) {
    const watermarkMs = recordMs(checkpoint, 'watermark');
    if (open !== null && watermarkMs !== open) slots.push(watermarkMs);
    open = checkpoint.kind === 'open' ? watermarkMs : null;
  }
  return slots;
}

/**
 * Resolve with a stream's records (oldest first) once `accept(records)` holds; reject after
 * timeoutMs with what the stream held last. Re-checked every 50 ms: the stream's directory may
 * not exist yet, and appends are fire-and-forget writes with no output line to wait on. With a
 * `daemon` (the writer), reject as soon as it exited, with its output.
 */
export async function waitForStoreRecords(
  storePath: string,
  stream: string,
  accept: (records: StoreRecord[]) => boolean,
  { timeoutMs = 15_000, daemon }: { timeoutMs?: number; daemon?: DaemonProcess } = {},
): Promise<StoreRecord[]> {
  let last: StoreRecord[] = [];
  const output = (): string => (daemon ? `; daemon output:\n${daemon.lines.join('\n')}` : '');
  try {
    return await waitUntil(
      () => {
        last = readStoreStream(storePath, stream);
        if (accept(last)) return last;
        if (daemon && !daemon.running)
          throw new Error(
            `the daemon exited (${daemon.child.exitCode ?? daemon.child.signalCode})`,
          );
        return false;
      },
      `records of ${stream}`,
      { timeoutMs },
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message} while waiting for records of ${stream}; the stream held:\n${JSON.stringify(last)}${output()}`,
    );
  }
}

/** The base URL (`http://127.0.0.1:<port>`) of the daemon's TCP web listener, from its log. */
export async function webUrlOf(daemon: DaemonProcess, timeoutMs = 15_000): Promise<string> {
  const record = await daemon.waitForLog(/^web: started listening on http:\/\/\S+$/, timeoutMs);
  return /http:\/\/\S+$/.exec(record.msg)![0];
}

/** GET `url` and parse the 200 response as JSON. */
export async function getJson<T = unknown>(url: string): Promise<T> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${body}`);
  return JSON.parse(body) as T;
}

/** GET `url` and return the 200 response's body. */
export async function getText(url: string): Promise<string> {
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${body}`);
  return body;
}

/** POST `url` with no body; returns the status. */
export async function post(url: string): Promise<number> {
  const response = await fetch(url, { method: 'POST' });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Resolve once the wall clock reaches `epochMs`. Only for real time a scenario is made of (a
 * daemon downtime spanning cron slots, a deadline that must be over before an absence is
 * asserted), never to hope that some event happened meanwhile.
 */
export async function waitForInstant(epochMs: number): Promise<void> {
  for (;;) {
    const remainingMs = epochMs - Date.now();
    if (remainingMs <= 0) return;
    await new Promise((resolvePromise) => setTimeout(resolvePromise, Math.min(remainingMs, 1_000)));
  }
}

/**
 * A 7-field schedule (seconds first) firing at these instants' second-of-minute in every minute:
 * a test gets exactly the slots it planned, and nothing else for about a minute.
 */
export function secondsSchedule(instantsMs: readonly number[]): string {
  const seconds = [...new Set(instantsMs.map((ms) => Math.floor(ms / 1000) % 60))];
  return `${seconds.sort((a, b) => a - b).join(',')} * * * * * *`;
}

export { freePort, reservePort } from '../../src/common/testing.js';
