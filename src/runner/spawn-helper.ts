// The daemon's side of the spawn helper (docs/performance.md "The spawn path"; its messages:
// docs/performance.md "The native helper's protocol", typed in spawn-helper-protocol.ts): starts
// the helper once (the native one when it was built, else the Node one; both speak the same
// messages), sends it the launches (one message per synchronous stretch of launches: a write to the
// channel costs more than the JSON in it) and turns its replies into a SpawnedChild per run. The
// captured pipes come back as handles (the native helper's held: read once the helper says they
// have output, docs/performance.md "The spawn path"), so output capture, process-group signals
// (the daemon signals -pid itself), executionTimeout and the drain stay in ChildRun, unchanged;
// a run the drain gives up is `forget`-ed, so the helper drops its copies of the run's pipes.
// A dead helper is restarted at once; meanwhile and whenever it cannot be used, launches take
// the in-process path. A launch whose message provably never reached the helper (the send
// failed) is retried in-process; one that reached it unanswered is reported as a spawn failure
// and never retried (it may have started: retrying could run it twice). Runs the dead helper had
// started keep running: their pipes are the daemon's, and their end is seen by polling the pid
// (the exit status went to whoever adopted them: reported as unknown, −1).
// Must not: make a launch wait for the helper, or start a run twice.
import { fork, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { Socket, type SocketConstructorOpts } from 'node:net';
import type { Readable } from 'node:stream';
import { createDeferred, type Clock, type TimerHandle } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import { isPidGone } from './process-group.js';
import { inProcessSpawner, type SpawnedChild, type Spawner } from './spawner.js';
import { diffEnv, envBase, type EnvBase } from './env-delta.js';
import type { HelperLaunch, HelperReply, HelperRequest } from './spawn-helper-protocol.js';
import type { OutputStream } from './types.js';

/** How often the pid of a run whose helper died is checked. */
export const ORPHAN_POLL_MS = 1_000;
/** How long the helper may take to say it is ready, at boot and after a restart. */
export const HELPER_READY_TIMEOUT_MS = 5_000;
/**
 * Launches sent in one message at most; a batch is otherwise sent at the end of the synchronous
 * stretch that made it (a microtask), so the helper starts forking while a long slice goes on.
 */
export const MAX_LAUNCHES_PER_MESSAGE = 16;
/** Restarts in a row that never reached 'ready' before the helper is given up (in-process). */
const MAX_FAILED_STARTS = 3;

export interface SpawnHelperDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * The helper's own environment, and the base each launch's environment is sent as a delta
   * from (env-delta.ts): read once per helper process.
   */
  readonly env: NodeJS.ProcessEnv;
  /**
   * The helper programs to try at boot, in order: the first that gets ready is kept (and started
   * again after a crash). Default: `defaultHelperPrograms()`.
   */
  readonly programs?: readonly HelperProgram[];
  /** Told when a helper process exited (before the restart). */
  readonly onHelperExit?: () => void;
}

/** A spawn helper program: both speak spawn-helper-protocol.ts over a JSON IPC channel. */
export type HelperProgram =
  /** native/spawn-helper.c, built by `npm run build` (posix_spawn: a vfork per launch). */
  | { readonly kind: 'native'; readonly path: string }
  /** spawn-helper-main.ts in a small `node` (child_process.spawn: a fork per launch). */
  | { readonly kind: 'node'; readonly script: string; readonly execArgv: readonly string[] };

export class SpawnHelper implements Spawner {
  readonly kind = 'helper' as const;
  readonly #deps: SpawnHelperDeps;
  readonly #children = new Map<number, HelperChild>();
  /** Launches not sent yet, with what starts each in-process if the send fails. */
  #batch: {
    readonly launch: HelperLaunch;
    readonly child: HelperChild;
    readonly fallback: () => SpawnedChild;
  }[] = [];
  #process: ChildProcess | null = null;
  readonly #programs: readonly HelperProgram[];
  /**
   * The program that got ready; null until one has. Only then is a dead helper restarted (with
   * this program): a boot failure is final.
   */
  #program: HelperProgram | null = null;
  #ready = false;
  #closed = false;
  #failedStarts = 0;
  #nextId = 1;
  /** The base the running helper holds (registered right after its fork). */
  #base: EnvBase = envBase({});
  #readyWaiter = createDeferred<boolean>();

  private constructor(deps: SpawnHelperDeps) {
    this.#deps = deps;
    this.#programs = deps.programs ?? defaultHelperPrograms();
  }

  /**
   * Starts the helper and returns at once: launches take the in-process path until it is ready
   * (`ready()`), and for good when no program gets so.
   */
  static launch(deps: SpawnHelperDeps): SpawnHelper {
    const helper = new SpawnHelper(deps);
    void helper.#boot();
    return helper;
  }

  /** Forks the helper and waits until it is ready; null when it cannot start (use in-process). */
  static async start(deps: SpawnHelperDeps): Promise<SpawnHelper | null> {
    const helper = SpawnHelper.launch(deps);
    return (await helper.ready()) ? helper : null;
  }

  /** The helper process's pid while one runs. */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /** Which helper program got ready ('native' or 'node'); null while none has. */
  get program(): HelperProgram['kind'] | null {
    return this.#program?.kind ?? null;
  }

  /** Resolves when the helper now starting (or running) is ready: false if it never got so. */
  ready(): Promise<boolean> {
    return this.#readyWaiter.promise;
  }

  /** True while launches go through a live helper (false: in-process until it is back). */
  get usable(): boolean {
    return this.#ready && !this.#closed && this.#process?.connected === true;
  }

  spawn(file: string, args: readonly string[], options: SpawnOptions): SpawnedChild {
    const helper = this.#process;
    if (!this.usable || helper === null) return inProcessSpawner.spawn(file, args, options);
    const stdio = options.stdio as readonly unknown[];
    const launch: HelperLaunch = {
      id: this.#nextId++,
      file,
      args,
      env: diffEnv(this.#base, options.env ?? process.env),
      captureStdout: stdio[1] === 'pipe',
      captureStderr: stdio[2] === 'pipe',
      uid: options.uid ?? null,
      gid: options.gid ?? null,
    };
    const child = new HelperChild(launch.captureStdout, launch.captureStderr, this.#deps, {
      forget: () => this.#children.delete(launch.id),
      giveUp: () => this.#giveUp(launch.id),
    });
    this.#children.set(launch.id, child);
    helper.ref();
    helper.channel?.ref();
    this.#batch.push({
      launch,
      child,
      fallback: () => inProcessSpawner.spawn(file, args, options),
    });
    if (this.#batch.length >= MAX_LAUNCHES_PER_MESSAGE) this.#flush();
    else if (this.#batch.length === 1) queueMicrotask(() => this.#flush());
    return child;
  }

  /** Sends the batched launches; a batch that cannot reach the helper starts in-process. */
  #flush(): void {
    const batch = this.#batch;
    if (batch.length === 0) return;
    this.#batch = [];
    const helper = this.#process;
    // Never delivered: they provably did not start, so they start here instead.
    const startHere = (): void => {
      for (const { launch, child, fallback } of batch) {
        if (child.pid !== undefined || !this.#children.has(launch.id)) continue;
        this.#children.delete(launch.id);
        child.adopt(fallback());
      }
    };
    if (!this.usable || helper === null) {
      startHere();
      return;
    }
    const message: HelperRequest = { type: 'spawn', launches: batch.map((entry) => entry.launch) };
    helper.send(message, (error) => {
      if (error !== null) startHere();
    });
  }

  /**
   * The daemon stopped reading run `id`'s output (ChildRun's drain gave up on it): the helper
   * drops what it still holds for the run (`forget`). Nothing to tell a helper that is gone.
   */
  #giveUp(id: number): void {
    const helper = this.#process;
    if (helper === null || !helper.connected) return;
    helper.send({ type: 'forget', id } satisfies HelperRequest);
  }

  /** Asks the helper to exit once the daemon is done launching; resolves when it has. */
  async close(): Promise<void> {
    this.#flush();
    this.#closed = true;
    const helper = this.#process;
    if (helper === null || helper.exitCode !== null || helper.signalCode !== null) return;
    const exited = createDeferred<void>();
    helper.once('exit', () => exited.resolve());
    helper.ref(); // held until it has exited
    // One that is not ready yet has no run: it is not waited for.
    if (helper.connected && this.#ready) helper.send({ type: 'stop' } satisfies HelperRequest);
    else helper.kill('SIGKILL');
    await exited.promise;
  }

  /** Tries the programs in order until one gets ready; `ready()` tells the outcome. */
  async #boot(): Promise<void> {
    const waiter = this.#readyWaiter;
    for (const program of this.#programs) {
      if (this.#closed) break;
      if (await this.#start(program)) {
        waiter.resolve(true);
        return;
      }
      this.#deps.logger.debug(`The ${program.kind} spawn helper did not start`);
    }
    waiter.resolve(false);
  }

  /** Starts the program that got ready again, after it died. */
  #restart(program: HelperProgram): void {
    const waiter = createDeferred<boolean>();
    this.#readyWaiter = waiter;
    void this.#start(program).then((ready) => waiter.resolve(ready));
  }

  /** Starts one helper process: true once it is ready, false if it exits or hangs first. */
  #start(program: HelperProgram): Promise<boolean> {
    this.#ready = false;
    const waiter = createDeferred<boolean>();
    const options: SpawnOptions = {
      env: this.#deps.env,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    };
    let helper: ChildProcess;
    try {
      helper =
        program.kind === 'native'
          ? spawn(program.path, [], options)
          : fork(program.script, [], { ...options, execArgv: [...program.execArgv] });
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'Cannot start the spawn helper');
      return Promise.resolve(false);
    }
    this.#process = helper;
    const timer = this.#deps.clock.setTimer(() => {
      this.#deps.logger.error('The spawn helper did not become ready: killing it');
      helper.kill('SIGKILL');
      waiter.resolve(false);
    }, HELPER_READY_TIMEOUT_MS);
    helper.on('message', (reply: HelperReply, handle?: Socket | HeldPipe) => {
      if (reply.type === 'ready') {
        timer.cancel();
        this.#program = program;
        this.#ready = true;
        this.#failedStarts = 0;
        this.#idle();
        waiter.resolve(true);
        return;
      }
      this.#onReply(reply, handle);
    });
    helper.on('error', (error) => {
      if (helper.pid === undefined) {
        // It never ran (a missing or foreign binary): no 'exit' will come.
        timer.cancel();
        if (this.#process === helper) this.#process = null;
        waiter.resolve(false);
        return;
      }
      this.#deps.logger.error({ err: error }, 'The spawn helper failed');
    });
    helper.once('exit', (code, signal) => {
      timer.cancel();
      waiter.resolve(false);
      this.#onHelperExit(helper, code, signal);
    });
    // Before any launch: the channel keeps the order, so every `spawn` finds it there.
    this.#base = envBase(this.#deps.env);
    if (helper.pid !== undefined) {
      helper.send({ type: 'base-env', env: this.#base.env } satisfies HelperRequest);
    }
    return waiter.promise;
  }

  #onReply(
    reply: Exclude<HelperReply, { type: 'ready' }>,
    handle: Socket | HeldPipe | undefined,
  ): void {
    const child = this.#children.get(reply.id);
    if (child === undefined) {
      if (handle instanceof Socket) handle.destroy();
      else handle?.close();
      return;
    }
    switch (reply.type) {
      case 'spawned':
        child.spawned(reply.pid);
        break;
      case 'pipe':
        if (handle === undefined) child.pipeLost(reply.stream);
        else if (reply.held === true) child.hold(reply.stream, handle as HeldPipe);
        else child.pipe(reply.stream, handle as Socket);
        break;
      case 'output':
        child.output(reply.stream);
        break;
      case 'empty':
        child.empty(reply.stream);
        break;
      case 'failed':
        this.#children.delete(reply.id);
        child.failed(Object.assign(new Error(reply.message), { code: reply.code ?? undefined }));
        break;
      case 'exit':
        // Kept until 'close': a held pipe may still be announced after the exit.
        child.exited(reply.code, reply.signal, reply.empty);
        break;
    }
    this.#idle();
  }

  /** Lets the daemon's loop end while no run waits on the helper (it holds it otherwise). */
  #idle(): void {
    if (this.#children.size > 0) return;
    this.#process?.unref();
    this.#process?.channel?.unref();
  }

  #onHelperExit(helper: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#process !== helper) return;
    this.#process = null;
    this.#ready = false;
    this.#deps.onHelperExit?.();
    const orphans = [...this.#children.values()];
    this.#children.clear();
    // Held pipes are the daemon's: with no helper to watch them, they are read from here on.
    for (const child of orphans) child.readHeld();
    // Closed, or never got ready at all (the caller stays in-process): not restarted.
    const program = this.#program;
    if (this.#closed || program === null) return;
    this.#deps.logger.error(
      `The spawn helper exited (${signal ?? `code ${String(code)}`}) with ${orphans.length} run(s) in flight; restarting it`,
    );
    for (const child of orphans) child.helperDied();
    if (++this.#failedStarts > MAX_FAILED_STARTS) {
      this.#deps.logger.error('The spawn helper keeps failing: runs start in-process from now on');
      return;
    }
    this.#restart(program);
  }
}

/** The Node helper program: beside this module, as .ts under the test loader. */
export function nodeHelperProgram(script?: string): HelperProgram {
  const url = new URL(import.meta.url);
  const typescript = url.pathname.endsWith('.ts');
  return {
    kind: 'node',
    script: script ?? new URL(`./spawn-helper-main.${typescript ? 'ts' : 'js'}`, url).pathname,
    execArgv: typescript ? ['--import', 'tsx'] : [],
  };
}

/** The native helper program at `path` (default: where the build puts it). */
export function nativeHelperProgram(
  path = nativeHelperPath(),
): Extract<HelperProgram, { kind: 'native' }> {
  return { kind: 'native', path };
}

/**
 * The native helper's binary, where `npm run build` puts it (scripts/build-native.mjs):
 * dist/native/ at the package root, from dist/runner/ or, under the test loader, src/runner/.
 */
export function nativeHelperPath(): string {
  const url = new URL(import.meta.url);
  const fromSource = url.pathname.endsWith('.ts');
  return new URL(
    fromSource ? '../../dist/native/yacron2-spawn-helper' : '../native/yacron2-spawn-helper',
    url,
  ).pathname;
}

/** The native helper when it was built, then the Node one. */
export function defaultHelperPrograms(): readonly HelperProgram[] {
  const native = nativeHelperProgram();
  const node = nodeHelperProgram();
  return existsSync(native.path) ? [native, node] : [node];
}

/**
 * A captured pipe's read end as the native helper hands it over: Node's raw pipe handle (a
 * `net.Native` handle, docs/performance.md "The spawn path"), kept unread until the helper says
 * it has output. Only closed, or wrapped in a socket.
 */
/** A held pipe's raw handle as Node's channel delivers it (`net.Native`). */
export interface HeldPipe {
  close(callback?: () => void): void;
}

/** A socket reading a held pipe, made as Node makes one for a `net.Socket` handle. */
export function socketFor(handle: HeldPipe): Socket {
  // `handle` is not in @types/node's constructor options; Node's child_process passes it so.
  return new Socket({ handle, readable: true, writable: true } as SocketConstructorOpts);
}

/** What a HelperChild tells its SpawnHelper. */
export interface HelperChildOwner {
  /** The run is over (exited, every pipe closed): drop it from the launches in flight. */
  forget(): void;
  /** The daemon stopped reading the run's output: tell the helper to drop what it holds for it. */
  giveUp(): void;
}

/**
 * One run launched through the helper, shaped like a ChildProcess for ChildRun (exported for its
 * tests).
 */
export class HelperChild extends EventEmitter implements SpawnedChild {
  pid: number | undefined;
  stdout: Readable | null = null;
  stderr: Readable | null = null;
  /** Held pipes not read yet (the native helper watches them for output or their end). */
  #heldStdout: HeldPipe | null = null;
  #heldStderr: HeldPipe | null = null;
  readonly #pipesExpected: number;
  #pipesOpen: number;
  /** Captured pipes the helper has accounted for: handed over (held or not) or reported lost. */
  #pipesSettled = 0;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  #poll: TimerHandle | undefined;
  readonly #deps: SpawnHelperDeps;
  readonly #owner: HelperChildOwner;

  constructor(stdout: boolean, stderr: boolean, deps: SpawnHelperDeps, owner: HelperChildOwner) {
    super();
    this.#pipesExpected = (stdout ? 1 : 0) + (stderr ? 1 : 0);
    this.#pipesOpen = this.#pipesExpected;
    this.#deps = deps;
    this.#owner = owner;
  }

  spawned(pid: number): void {
    this.pid = pid;
    this.emit('spawn');
  }

  pipe(stream: OutputStream, socket: Socket): void {
    this.#pipesSettled++;
    this.#read(stream, socket);
  }

  #read(stream: OutputStream, socket: Socket): void {
    if (stream === 'stdout') this.stdout = socket;
    else this.stderr = socket;
    socket.once('close', () => this.#pipeClosed());
    this.emit('stdio', stream, socket);
  }

  /** A held pipe arrived: it stays unread until `output`, and counts as open until `empty`. */
  hold(stream: OutputStream, handle: HeldPipe): void {
    this.#pipesSettled++;
    if (stream === 'stdout') this.#heldStdout = handle;
    else this.#heldStderr = handle;
  }

  /** A held pipe has output: from now on it is read like any captured pipe. */
  output(stream: OutputStream): void {
    const handle = this.#takeHeld(stream);
    if (handle !== null) this.#read(stream, socketFor(handle));
  }

  /** Reads the held pipes from now on: no helper watches them any more. */
  readHeld(): void {
    this.output('stdout');
    this.output('stderr');
  }

  /** A held pipe ended without a byte. */
  empty(stream: OutputStream): void {
    const handle = this.#takeHeld(stream);
    if (handle === null) return;
    handle.close();
    this.#pipeClosed();
  }

  /**
   * Stops reading the captured pipes: the drain gave up on a process that holds them open. The
   * helper is told to drop its own copies too (a held pipe's, watched for output).
   */
  closeOutput(): void {
    this.#owner.giveUp();
    for (const stream of ['stdout', 'stderr'] as const) this.empty(stream);
    this.stdout?.destroy();
    this.stderr?.destroy();
  }

  #takeHeld(stream: OutputStream): HeldPipe | null {
    const handle = stream === 'stdout' ? this.#heldStdout : this.#heldStderr;
    if (stream === 'stdout') this.#heldStdout = null;
    else this.#heldStderr = null;
    return handle;
  }

  /** A pipe that will never arrive (the helper could not send it or died first). */
  pipeLost(stream: OutputStream): void {
    this.#deps.logger.warn(`Run pid ${String(this.pid)}: its ${stream} pipe was lost`);
    this.#pipesSettled++;
    this.#pipeClosed();
  }

  failed(error: Error): void {
    this.emit('error', error);
  }

  exited(
    code: number | null,
    signal: NodeJS.Signals | null,
    empty: readonly OutputStream[] = [],
  ): void {
    for (const stream of empty) this.empty(stream);
    if (this.#exit !== null) return;
    this.#poll?.cancel();
    this.#exit = { code, signal };
    this.emit('exit', code, signal);
    this.#maybeClosed();
  }

  /** The in-process spawn that replaced an undelivered launch: relay its events. */
  adopt(child: SpawnedChild): void {
    child.on('error', (error) => this.failed(error));
    if (child.pid === undefined) return;
    this.spawned(child.pid);
    if (child.stdout) this.pipe('stdout', child.stdout as Socket);
    if (child.stderr) this.pipe('stderr', child.stderr as Socket);
    child.once('exit', (code, signal) => this.exited(code, signal));
  }

  /** The helper died: this run is on its own now. */
  helperDied(): void {
    if (this.pid === undefined) {
      this.failed(
        new Error(
          'the spawn helper died before confirming the launch (not retried: it may have started)',
        ),
      );
      return;
    }
    // Pipes the helper had not handed over yet are gone with it (held ones are read: readHeld).
    while (this.#pipesSettled < this.#pipesExpected) {
      this.#pipesSettled++;
      this.#pipeClosed();
    }
    this.#watchOrphan(this.pid);
  }

  #watchOrphan(pid: number): void {
    if (this.#exit !== null) return;
    if (isPidGone(pid)) {
      this.#deps.logger.warn(
        `Run pid ${pid} ended after the spawn helper died: its exit status is unknown`,
      );
      this.exited(null, null);
      return;
    }
    this.#poll = this.#deps.clock.setTimer(() => this.#watchOrphan(pid), ORPHAN_POLL_MS);
  }

  #pipeClosed(): void {
    this.#pipesOpen--;
    this.#maybeClosed();
  }

  #maybeClosed(): void {
    if (this.#exit === null || this.#pipesOpen > 0) return;
    this.#owner.forget();
    this.emit('close', this.#exit.code, this.#exit.signal);
  }
}
