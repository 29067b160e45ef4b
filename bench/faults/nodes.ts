// The daemons of a fault run: start (each under its own host name, as the shared store needs,
// and with its own wall-clock offset through libfaketime when asked), SIGKILL, SIGTERM, SIGSTOP
// and SIGCONT by node name, and every process ever started (its log is read at the end). A node
// may be a Python reference node instead (YACRON2_REFERENCE_CMD, docs/clustering.md
// "Interoperating with Python nodes"): the command is run with the same `-c <config>` arguments.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { canSetHostName, DaemonProcess } from '../../test/e2e/harness.js';

/** Debian's libfaketime (package faketime); DONT_FAKE_MONOTONIC keeps the timers honest. */
export const FAKETIME_LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

export interface NodeOptions {
  readonly dir: string;
  /** Wall-clock offset of each (re)start, ms (0: the real clock). */
  readonly offsetMs: (name: string) => number;
  /** Nodes run by the reference command instead of this build. */
  readonly reference: ReadonlySet<string>;
  readonly referenceCommand: readonly string[] | null;
}

export class Nodes {
  readonly #live = new Map<string, DaemonProcess>();
  readonly #paused = new Set<string>();
  /** Every process started, restarts included, with the clock offset it ran under. */
  readonly started: { name: string; daemon: DaemonProcess; offsetMs: number }[] = [];
  readonly #hostnames = canSetHostName();

  constructor(readonly options: NodeOptions) {}

  get hostnames(): boolean {
    return this.#hostnames;
  }

  /** Start `name`; resolves once its control API listens (a reference node: once spawned). */
  async start(name: string): Promise<void> {
    const offsetMs = this.options.offsetMs(name);
    const env: NodeJS.ProcessEnv = { ...process.env, YC_NODE: name };
    if (offsetMs !== 0) {
      if (!existsSync(FAKETIME_LIB)) throw new Error(`clock offsets need ${FAKETIME_LIB}`);
      env.LD_PRELOAD = FAKETIME_LIB;
      env.FAKETIME = `${offsetMs >= 0 ? '+' : '-'}${Math.abs(offsetMs) / 1000}s`;
      env.DONT_FAKE_MONOTONIC = '1';
    }
    const reference = this.options.reference.has(name);
    const daemon = new DaemonProcess(['-c', join(this.options.dir, `${name}.yaml`)], {
      env,
      ...(this.#hostnames ? { hostname: `yacron2-${name}` } : {}),
      ...(reference && this.options.referenceCommand !== null
        ? { command: this.options.referenceCommand }
        : {}),
    });
    this.#live.set(name, daemon);
    this.started.push({ name, daemon, offsetMs });
    if (!reference) {
      await daemon.waitForLog(/^web: started listening on http:\/\/127\.0\.0\.1:\d+$/, 60_000);
    }
  }

  isUp(name: string): boolean {
    return (this.#live.get(name)?.running ?? false) && !this.#paused.has(name);
  }

  async kill(name: string): Promise<void> {
    await this.#live.get(name)?.kill();
  }

  async term(name: string): Promise<void> {
    await this.#live.get(name)?.stop('SIGTERM');
  }

  pause(name: string): void {
    this.#paused.add(name);
    this.#live.get(name)?.child.kill('SIGSTOP');
  }

  resume(name: string): void {
    this.#live.get(name)?.child.kill('SIGCONT');
    this.#paused.delete(name);
  }

  /** SIGCONT anything paused, then SIGKILL every live process. */
  async killAll(): Promise<void> {
    for (const name of [...this.#paused]) this.resume(name);
    await Promise.all([...this.#live.values()].map((daemon) => daemon.kill()));
  }

  /** SIGTERM every live node (a graceful full outage). */
  async termAll(): Promise<void> {
    for (const name of [...this.#paused]) this.resume(name);
    await Promise.all([...this.#live.values()].map((daemon) => daemon.stop('SIGTERM')));
  }
}
