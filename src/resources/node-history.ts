// The `web.nodeHistory` ring (docs/http-api.md "GET /node and GET /node/history"): this node's CPU
// and memory % sampled every `interval`, the newest `points` kept, in memory only. Reconfigured in
// place on every reload: a changed interval re-arms the timer, a changed size keeps the newest
// points, `enabled: false` (or no section) stops sampling and drops the points. A node whose
// resources cannot be read reports the ring as disabled. Must not: keep a timer while disabled;
// grow past `points`.
import type { Clock, TimerHandle } from '../common/index.js';
import type { NodeResources } from './node-stats.js';

export interface NodeHistorySettings {
  readonly enabled: boolean;
  readonly intervalMs: number;
  /** Most points kept. */
  readonly points: number;
}

/** [epoch ms, CPU %, memory %]. */
export type NodePoint = readonly [atMs: number, cpuPercent: number, memPercent: number];

export interface NodeHistorySnapshot {
  readonly enabled: boolean;
  /** null while disabled. */
  readonly intervalMs: number | null;
  /** Oldest first. */
  readonly points: readonly NodePoint[];
}

export interface NodeHistoryDeps {
  readonly clock: Clock;
  readonly reader: { read(): NodeResources | null };
}

export class NodeHistory implements Disposable {
  readonly #clock: Clock;
  readonly #reader: NodeHistoryDeps['reader'];
  #settings: NodeHistorySettings | null = null;
  /** A ring: `#ring[(#start + i) % capacity]` is the i-th oldest point. */
  #ring: NodePoint[] = [];
  #start = 0;
  #timer: TimerHandle | null = null;
  #unavailable = false;

  constructor(deps: NodeHistoryDeps) {
    this.#clock = deps.clock;
    this.#reader = deps.reader;
  }

  /** Apply `web.nodeHistory` (null = no web section: off). */
  configure(settings: NodeHistorySettings | null): void {
    const next = settings?.enabled ? settings : null;
    const previous = this.#settings;
    if (
      previous?.intervalMs === next?.intervalMs &&
      previous?.points === next?.points &&
      (previous === null) === (next === null)
    ) {
      return;
    }
    this.#settings = next;
    if (next === null) {
      this.#stop();
      this.#ring = [];
      this.#start = 0;
      return;
    }
    if (previous === null || previous.points !== next.points) this.#resize(next.points);
    if (previous === null || previous.intervalMs !== next.intervalMs) {
      this.#stop();
      // The first reading only sets the CPU baseline; it also tells whether /proc is readable.
      this.#unavailable = this.#reader.read() === null;
      if (!this.#unavailable) this.#arm(next.intervalMs);
    }
  }

  snapshot(): NodeHistorySnapshot {
    const settings = this.#settings;
    if (settings === null || this.#unavailable) {
      return { enabled: false, intervalMs: null, points: [] };
    }
    return { enabled: true, intervalMs: settings.intervalMs, points: this.#ordered() };
  }

  close(): void {
    this.#settings = null;
    this.#stop();
    this.#ring = [];
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #arm(intervalMs: number): void {
    this.#timer = this.#clock.setTimer(() => {
      this.#timer = null;
      this.#sample();
      if (this.#settings !== null && !this.#unavailable) this.#arm(intervalMs);
    }, intervalMs);
  }

  #stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
  }

  #sample(): void {
    const settings = this.#settings;
    if (settings === null) return;
    const reading = this.#reader.read();
    if (reading === null) {
      this.#unavailable = true;
      return;
    }
    const point: NodePoint = [this.#clock.now(), reading.cpuPercent, reading.memPercent];
    const capacity = settings.points;
    if (this.#ring.length < capacity) {
      this.#ring.push(point);
    } else {
      this.#ring[this.#start] = point;
      this.#start = (this.#start + 1) % capacity;
    }
  }

  /** Keep the newest `capacity` points, re-laid out from index 0. */
  #resize(capacity: number): void {
    this.#ring = this.#ordered().slice(-capacity);
    this.#start = 0;
  }

  /** The points oldest first (a full ring wraps at #start; a filling one starts at 0). */
  #ordered(): NodePoint[] {
    const length = this.#ring.length;
    const points: NodePoint[] = [];
    for (let index = 0; index < length; index++) {
      points.push(this.#ring[(this.#start + index) % length]!);
    }
    return points;
  }
}
