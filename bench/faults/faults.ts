// The fault injector of a fault run: from a seeded PRNG, starts a fault every ~gap ms (faults
// overlap; each reverts itself after its own seeded duration) and records when each began and
// ended, what it hit and whether that node was the Leader job's runner at the time (the checker
// times doubles and takeovers against these). Process faults never take more than a minority of
// nodes down at once (a quorum stays possible); link faults may pile up.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { TcpProxy } from '../../test/e2e/cluster-harness.js';
import { pause, progress } from '../lib/soak.js';
import type { FaultCluster } from './cluster.js';
import type { Nodes } from './nodes.js';

export const FAULT_KINDS = [
  'link-cut', // a gossip link refused both ways
  'link-oneway', // one direction of a gossip link refused
  'link-blackhole', // a gossip link accepting and dropping both ways
  'link-delay', // a gossip link delayed both ways
  'partition', // every gossip link of one node refused
  'store-cut', // a node's store link refused
  'store-blackhole', // a node's store link accepting and dropping
  'store-oneway', // one direction of a node's store link dropped (its requests, or the answers)
  'store-delay', // a node's store link delayed
  'store-pause', // etcd SIGSTOPped; kubernetes: every store link blackholed at once
  'pause', // SIGSTOP, SIGCONT 3-10 s later
  'kill', // SIGKILL, restarted 1-4 s later
  'term', // SIGTERM, restarted 1-4 s later
  'clock', // a (re)start under a wall-clock offset (counted, not scheduled)
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  readonly kind: FaultKind;
  /** The node hit (the `from` of a link), null for the store itself. */
  readonly node: string | null;
  readonly detail: string;
  readonly startMs: number;
  endMs: number;
  /** The node that ran the latest Leader slot before the fault, if it is `node`. */
  readonly hitLeader: boolean;
}

/** The node that ran the newest `lead` line of the witness (read incrementally). */
export class LeaderTail {
  #offset = 0;
  #partial = '';
  #latest: { second: number; node: string } | null = null;

  constructor(readonly path: string) {}

  latest(): string | null {
    let size = 0;
    try {
      size = statSync(this.path).size;
    } catch {
      return null;
    }
    if (size > this.#offset) {
      const buffer = Buffer.alloc(size - this.#offset);
      const fd = openSync(this.path, 'r');
      try {
        readSync(fd, buffer, 0, buffer.length, this.#offset);
      } finally {
        closeSync(fd);
      }
      this.#offset = size;
      const lines = (this.#partial + buffer.toString('utf8')).split('\n');
      this.#partial = lines.pop() ?? '';
      for (const line of lines) {
        const [second, node, job] = line.split(' ');
        if (job !== 'lead' || node === undefined) continue;
        if (this.#latest === null || Number(second) >= this.#latest.second) {
          this.#latest = { second: Number(second), node };
        }
      }
    }
    return this.#latest?.node ?? null;
  }
}

export interface InjectorOptions {
  readonly random: () => number;
  /** Mean gap between fault starts, ms. */
  readonly gapMs: number;
  /** Pause and restart a node, recording the restart (and its clock offset). */
  readonly restart: (name: string) => Promise<void>;
}

export class Injector {
  readonly faults: Fault[] = [];
  readonly #busyNodes = new Set<string>();
  readonly #busyLinks = new Set<TcpProxy>();
  #storePaused = false;
  #reported = 0;
  readonly #inflight = new Set<Promise<void>>();
  readonly #leader: LeaderTail;

  constructor(
    readonly cluster: FaultCluster,
    readonly nodes: Nodes,
    readonly options: InjectorOptions,
  ) {
    this.#leader = new LeaderTail(cluster.witness);
  }

  #between(low: number, high: number): number {
    return low + this.options.random() * (high - low);
  }

  #pick<T>(items: readonly T[]): T | undefined {
    return items[Math.floor(this.options.random() * items.length)];
  }

  /** Faults injected so far: the recorded clock offsets of (re)starts are not counted. */
  get injected(): number {
    return this.faults.filter((fault) => fault.kind !== 'clock').length;
  }

  /** Inject faults until `untilMs` or `max` of them, then wait for every fault to revert. */
  async run(untilMs: number, max: number): Promise<void> {
    while (Date.now() < untilMs && this.injected < max) {
      await pause(this.#between(0.5, 1.5) * this.options.gapMs);
      if (Date.now() >= untilMs) break;
      const task = this.#one().catch((error: unknown) =>
        progress(`fault failed: ${String(error)}`),
      );
      this.#inflight.add(task);
      if (this.injected >= this.#reported + 100) {
        this.#reported = this.injected;
        progress(`${this.injected} faults injected`);
      }
      void task.finally(() => this.#inflight.delete(task));
    }
    await Promise.all([...this.#inflight]);
  }

  /** Record a fault that the caller performed itself (a clock offset at a start). */
  record(kind: FaultKind, node: string, detail: string): void {
    const now = Date.now();
    this.faults.push({ kind, node, detail, startMs: now, endMs: now, hitLeader: false });
  }

  #kinds(): FaultKind[] {
    const { backend, store, storeLinks } = this.cluster;
    const gossip = backend === 'gossip' || backend === 'gossip-spread';
    const links: FaultKind[] = gossip
      ? ['link-cut', 'link-oneway', 'link-blackhole', 'link-delay', 'partition']
      : storeLinks.size > 0
        ? ['store-cut', 'store-oneway', 'store-blackhole', 'store-delay']
        : [];
    const storeWide: FaultKind[] = store !== null || storeLinks.size > 0 ? ['store-pause'] : [];
    // Process faults weigh double: they are what moves leadership.
    return [...links, ...storeWide, 'pause', 'pause', 'kill', 'kill', 'term', 'term'];
  }

  async #one(): Promise<void> {
    const kind = this.#pick(this.#kinds())!;
    const names = this.cluster.names;
    const leader = this.#leader.latest();
    const idle = names.filter((name) => !this.#busyNodes.has(name) && this.nodes.isUp(name));
    if (kind === 'pause' || kind === 'kill' || kind === 'term') {
      const maxDown = Math.floor((names.length - 1) / 2);
      if (this.#busyNodes.size >= maxDown || idle.length === 0) return;
      // Half of the process faults hit the Leader job's runner: those move leadership.
      const target =
        leader !== null && idle.includes(leader) && this.options.random() < 0.5
          ? leader
          : this.#pick(idle)!;
      await this.#process(kind, target, target === leader);
      return;
    }
    if (kind === 'store-pause') {
      if (this.#storePaused) return;
      await this.#storePause();
      return;
    }
    if (kind === 'partition') {
      const target = this.#pick(idle);
      if (target === undefined) return;
      const links = names
        .filter((other) => other !== target)
        .flatMap((other) => [`${target}>${other}`, `${other}>${target}`])
        .map((key) => this.cluster.peerLinks.get(key)!);
      if (links.some((link) => this.#busyLinks.has(link))) return;
      await this.#links(kind, target, target === leader, links, (link) => link.cut(), 'isolated');
      return;
    }
    const from = this.#pick(names)!;
    let links: TcpProxy[];
    let detail: string;
    let oneWay: 'to-target' | 'to-client' = 'to-target';
    if (kind.startsWith('store-')) {
      links = [this.cluster.storeLinks.get(from)!];
      // One way: the node's requests lost (`a>store`), or the store's answers (`store>a`).
      if (kind === 'store-oneway' && this.options.random() < 0.5) oneWay = 'to-client';
      detail =
        kind === 'store-oneway' && oneWay === 'to-client' ? `store>${from}` : `${from}>store`;
    } else {
      const to = this.#pick(names.filter((other) => other !== from))!;
      const forward = this.cluster.peerLinks.get(`${from}>${to}`)!;
      const back = this.cluster.peerLinks.get(`${to}>${from}`)!;
      links = kind === 'link-oneway' ? [forward] : [forward, back];
      detail = kind === 'link-oneway' ? `${from}>${to}` : `${from}<>${to}`;
    }
    if (links.some((link) => this.#busyLinks.has(link))) return;
    const delayMs = Math.round(this.#between(200, 2_000));
    const apply =
      kind === 'link-delay' || kind === 'store-delay'
        ? (link: TcpProxy): void => link.delay(delayMs)
        : kind === 'link-blackhole' || kind === 'store-blackhole'
          ? (link: TcpProxy): void => link.blackhole()
          : kind === 'store-oneway'
            ? (link: TcpProxy): void => link.blackhole(oneWay)
            : (link: TcpProxy): void => link.cut();
    const suffix = kind.endsWith('-delay') ? ` ${delayMs} ms` : '';
    await this.#links(kind, from, from === leader, links, apply, `${detail}${suffix}`);
  }

  async #links(
    kind: FaultKind,
    node: string,
    hitLeader: boolean,
    links: readonly TcpProxy[],
    apply: (link: TcpProxy) => void,
    detail: string,
  ): Promise<void> {
    for (const link of links) this.#busyLinks.add(link);
    const fault: Fault = { kind, node, detail, startMs: Date.now(), endMs: 0, hitLeader };
    this.faults.push(fault);
    for (const link of links) apply(link);
    await pause(this.#between(500, 5_000));
    for (const link of links) link.heal();
    fault.endMs = Date.now();
    for (const link of links) this.#busyLinks.delete(link);
  }

  async #storePause(): Promise<void> {
    this.#storePaused = true;
    const links = [...this.cluster.storeLinks.values()];
    const store = this.cluster.store;
    const fault: Fault = {
      kind: 'store-pause',
      node: null,
      detail: store !== null ? 'SIGSTOP store' : 'every store link blackholed',
      startMs: Date.now(),
      endMs: 0,
      hitLeader: false,
    };
    this.faults.push(fault);
    if (store !== null) store.pause();
    else for (const link of links) link.blackhole();
    await pause(this.#between(2_000, 6_000));
    if (store !== null) store.resume();
    // A link another fault holds is left to that fault's own heal.
    else for (const link of links) if (!this.#busyLinks.has(link)) link.heal();
    fault.endMs = Date.now();
    this.#storePaused = false;
  }

  async #process(kind: 'pause' | 'kill' | 'term', node: string, hitLeader: boolean): Promise<void> {
    this.#busyNodes.add(node);
    const fault: Fault = { kind, node, detail: '', startMs: Date.now(), endMs: 0, hitLeader };
    this.faults.push(fault);
    try {
      if (kind === 'pause') {
        this.nodes.pause(node);
        await pause(this.#between(3_000, 10_000));
        this.nodes.resume(node);
        fault.endMs = Date.now();
      } else {
        await (kind === 'kill' ? this.nodes.kill(node) : this.nodes.term(node));
        await pause(this.#between(1_000, 4_000));
        await this.options.restart(node);
        fault.endMs = Date.now();
        // Let a restarted node reach its first timer before it can be signalled again.
        await pause(2_000);
      }
    } finally {
      this.#busyNodes.delete(node);
    }
  }
}
