// Helpers (no tests here) for clusters of real daemons on 127.0.0.1: free ports, a TCP proxy
// per directed link that the test can cut and heal (a partition) or slow down (a delay each way),
// per-node configs over mTLS certificates made with openssl or over a lease backend (etcd, a
// lease directory), the control API's JSON, and the shared witness file the jobs append to. Used
// by the cluster e2e tests and the bench soak.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestCa } from '../../src/cluster/testing.js';
import {
  freePort,
  reservePort,
  startDaemon,
  webUrlOf,
  writeConfig,
  type DaemonProcess,
  type TeardownContext,
} from './harness.js';

export { freePort };

/**
 * One directed link: forwards to `targetPort` in one of four modes. `cut()` refuses (every open
 * and new connection is reset), `blackhole()` accepts and drops every byte both ways (the peer
 * waits for its timeout) or one way only (requests lost, or answers lost), `delay(ms)` holds every chunk `ms` in each direction (order is kept,
 * also when the delay changes); `heal()` is plain forwarding again.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #cut = false;
  /** Which directions drop every byte: toward the target (requests), toward the client (answers). */
  #drop = { toTarget: false, toClient: false };
  #delayMs = 0;
  port = 0;

  private constructor(
    targetPort: number,
    readonly options: { readonly onDrop?: (direction: 'to-target' | 'to-client') => void } = {},
  ) {
    this.#server = createServer((client) => {
      if (this.#cut) {
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      relay(client, upstream, () => this.#hold('to-target'));
      relay(upstream, client, () => this.#hold('to-client'));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  /** `onDrop` hears each chunk a blackhole drops (tests wait on it). */
  static async start(targetPort: number, options: TcpProxy['options'] = {}): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetPort, options);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    const address = proxy.#server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    proxy.port = address.port;
    return proxy;
  }

  /** How long to hold a chunk going `direction`, or null to drop it. */
  #hold(direction: 'to-target' | 'to-client'): number | null {
    if (direction === 'to-target' ? this.#drop.toTarget : this.#drop.toClient) {
      this.options.onDrop?.(direction);
      return null;
    }
    return this.#delayMs;
  }

  get isCut(): boolean {
    return this.#cut;
  }

  /** Reset every open connection and every new one. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  /**
   * Accept, then drop every byte (open connections included) until healed: both ways, or only
   * the client's bytes toward the target, or only the target's answers toward the client.
   */
  blackhole(direction: 'both' | 'to-target' | 'to-client' = 'both'): void {
    this.#drop = {
      toTarget: direction !== 'to-client',
      toClient: direction !== 'to-target',
    };
  }

  /** Forward every chunk `ms` late until healed. */
  delay(ms: number): void {
    this.#delayMs = ms;
  }

  heal(): void {
    this.#cut = false;
    this.#drop = { toTarget: false, toClient: false };
    this.#delayMs = 0;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * Forward `from`'s bytes (and its end) to `to`, each chunk held `holdMs()` but never reordered;
 * a null hold (a blackhole) drops the chunk.
 */
function relay(from: Socket, to: Socket, holdMs: () => number | null): void {
  const queue: { dueMs: number; chunk: Buffer | null }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const drain = (): void => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.dueMs <= now) {
      const { chunk } = queue.shift()!;
      if (to.destroyed) continue;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(drain, queue[0]!.dueMs - now);
  };
  const push = (chunk: Buffer | null): void => {
    const hold = holdMs();
    if (hold === null) return;
    const dueMs = Math.max(performance.now() + hold, queue.at(-1)?.dueMs ?? 0);
    queue.push({ dueMs, chunk });
    if (timer === undefined) drain();
  };
  from.on('data', (chunk: Buffer) => push(chunk));
  from.on('end', () => push(null));
  from.on('close', () => clearTimeout(timer));
}

/**
 * Nodes on 127.0.0.1 whose every directed link goes through its own TcpProxy (`link('a', 'c')`
 * carries a's polls of c), with their certificates at fixed paths in `dir` (a rotation rewrites
 * them in place) and the config each node runs.
 */
export class ProxiedMesh<Name extends string> {
  readonly #listen = new Map<Name, number>();
  readonly #proxies = new Map<string, TcpProxy>();

  private constructor(
    readonly dir: string,
    readonly names: readonly Name[],
    readonly ca: TestCa,
    readonly witness: string,
  ) {}

  static async create<Name extends string>(
    dir: string,
    names: readonly Name[],
    ca: TestCa,
  ): Promise<ProxiedMesh<Name>> {
    const mesh = new ProxiedMesh(dir, names, ca, witnessPath(dir));
    // The nodes' ports stay held while the proxies open theirs: a proxy handed a node's port
    // number would make that node's peer list name itself (and the node could not listen).
    const held = [];
    for (const name of names) {
      const reserved = await reservePort();
      held.push(reserved);
      mesh.#listen.set(name, reserved.port);
    }
    for (const from of names) {
      for (const to of names) {
        if (from === to) continue;
        mesh.#proxies.set(`${from}>${to}`, await TcpProxy.start(mesh.#listen.get(to)!));
      }
    }
    for (const reserved of held) await reserved.release();
    for (const name of names) {
      mesh.install(name, mesh.issue(name));
      await writeNodeConfig(dir, name, mesh.config(name));
    }
    return mesh;
  }

  get proxies(): readonly TcpProxy[] {
    return [...this.#proxies.values()];
  }

  link(from: Name, to: Name): TcpProxy {
    return this.#proxies.get(`${from}>${to}`)!;
  }

  /** The address `from` polls `to` at. */
  hostOf(from: Name, to: Name): string {
    return `127.0.0.1:${this.link(from, to).port}`;
  }

  /** A certificate for `name` (DNS name and 127.0.0.1) from `authority` (default: the mesh's CA). */
  issue(name: string, authority: TestCa = this.ca): { cert: string; key: string } {
    const made = authority.issue(name, [`DNS:${name}`, 'IP:127.0.0.1']);
    return { cert: made.certPath, key: made.keyPath };
  }

  /** Put a certificate and key at the node's fixed paths (in place). */
  install(name: Name, made: { cert: string; key: string }): void {
    copyFileSync(made.cert, join(this.dir, `${name}.pem`));
    copyFileSync(made.key, join(this.dir, `${name}.key`));
  }

  config(name: Name, overrides: Partial<NodeConfig> = {}): NodeConfig {
    return {
      name,
      listenPort: this.#listen.get(name)!,
      peers: this.names.filter((other) => other !== name).map((other) => this.hostOf(name, other)),
      tls: {
        ca: this.ca.caPath,
        cert: join(this.dir, `${name}.pem`),
        key: join(this.dir, `${name}.key`),
      },
      witness: this.witness,
      ...overrides,
    };
  }

  /** Cut every link to and from `name`. */
  isolate(name: Name): void {
    for (const other of this.names) {
      if (other === name) continue;
      this.link(name, other).cut();
      this.link(other, name).cut();
    }
  }

  healAll(): void {
    for (const proxy of this.#proxies.values()) proxy.heal();
  }

  async close(): Promise<void> {
    await Promise.all(this.proxies.map((proxy) => proxy.close()));
  }
}

export interface NodeTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export interface NodeConfig {
  readonly name: string;
  readonly listenPort: number;
  /** The peers' addresses as this node reaches them (through the proxies). */
  readonly peers: readonly string[];
  readonly tls: NodeTls;
  readonly witness: string;
  readonly distribution?: 'single-leader' | 'spread';
  readonly intervalSeconds?: number;
  /** Extra job YAML (list items). */
  readonly extraJobs?: string;
  /** Job YAML (list items) instead of the witness jobs lead, prefer, every and boot. */
  readonly jobs?: string;
  /** Extra top-level sections (YAML), e.g. `state`. */
  readonly sections?: string;
}

/** A one-second job that appends `<epoch second> <node> <job>` to the witness file. */
export function witnessJob(
  name: string,
  policy: string,
  witness: string,
  schedule = '* * * * * * *',
): string {
  return (
    `  - name: ${name}\n` +
    `    command: echo "$(date +%s) $YC_NODE ${name}" >> ${witness}\n` +
    `    schedule: "${schedule}"\n` +
    `    clusterPolicy: ${policy}\n` +
    `    captureStderr: false\n`
  );
}

export function nodeConfigYaml(node: NodeConfig): string {
  const peers = node.peers.map((host) => `    - host: "${host}"\n`).join('');
  return (
    `jobs:\n` +
    (node.jobs ??
      witnessJob('lead', 'Leader', node.witness) +
        witnessJob('prefer', 'PreferLeader', node.witness) +
        witnessJob('every', 'EveryNode', node.witness) +
        witnessJob('boot', 'Leader', node.witness, '@reboot')) +
    (node.extraJobs ?? '') +
    (node.sections ?? '') +
    `web:\n  listen:\n    - http://127.0.0.1:0\n` +
    `cluster:\n` +
    `  listen: "127.0.0.1:${node.listenPort}"\n` +
    `  tls:\n    ca: ${node.tls.ca}\n    cert: ${node.tls.cert}\n    key: ${node.tls.key}\n` +
    `  peers:\n${peers}` +
    `  nodeName: ${node.name}\n` +
    `  interval: ${node.intervalSeconds ?? 1}\n` +
    `  connectTimeout: 5\n` +
    `  electLeader: true\n` +
    `  distribution: ${node.distribution ?? 'single-leader'}\n`
  );
}

/** Where a lease-backend node elects: etcd at these endpoints, or a shared lease directory. */
export type LeaseStore =
  | { readonly backend: 'etcd'; readonly endpoints: readonly string[]; readonly ttl: number }
  | { readonly backend: 'filesystem'; readonly path: string; readonly ttl: number };

/** A lease-backend node: its jobs (list items), extra top-level sections, a control API. */
export function leaseNodeYaml(
  name: string,
  store: LeaseStore,
  jobs: string,
  sections = '',
): string {
  const block =
    store.backend === 'etcd'
      ? `  etcd:\n    endpoints:\n${store.endpoints.map((url) => `      - ${url}\n`).join('')}`
      : `  filesystem:\n    path: ${store.path}\n    topology: shared\n`;
  return (
    `jobs:\n${jobs}${sections}` +
    `web:\n  listen:\n    - http://127.0.0.1:0\n` +
    `cluster:\n  backend: ${store.backend}\n  nodeName: ${name}\n${block}    ttl: ${store.ttl}\n`
  );
}

/** Write `<file>.yaml` (the file a daemon runs; the node may be renamed inside it). */
export async function writeNodeConfig(
  dir: string,
  file: string,
  node: NodeConfig,
): Promise<string> {
  return writeConfig(dir, nodeConfigYaml(node), `${file}.yaml`);
}

/** GET a JSON route of a control API (bounded). */
export async function getJson<T>(base: string, path: string): Promise<T> {
  const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

/** What GET /cluster reports (the fields the tests read). */
export interface ClusterBody {
  readonly enabled: boolean;
  readonly node_name: string;
  readonly cluster_size: number;
  readonly quorate: boolean;
  readonly leader: string | null;
  readonly is_leader: boolean;
  readonly distribution: string;
  readonly conflict: boolean;
  readonly conflict_names: readonly string[];
  readonly conflicting_sizes: readonly number[];
  readonly peers: readonly { host: string; status: string; node_name: string | null }[];
  readonly node_stats: Readonly<Record<string, number>> | null;
}

/** One witness line: a job ran on a node in that epoch second. */
export interface Firing {
  readonly second: number;
  readonly node: string;
  readonly job: string;
}

export function readWitness(path: string): Firing[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [second, node, job] = line.split(' ');
      return { second: Number(second), node: node ?? '', job: job ?? '' };
    });
}

export function witnessPath(dir: string): string {
  return join(dir, 'witness.log');
}

/** Resolve once the async `check()` returns a value other than undefined/false (bounded). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  { timeoutMs = 15_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The daemons of a mesh whose nodes share one state directory: each started from `<name>.yaml`
 * in `dir` with a 1 s housekeeping pass, `YC_NODE` set, and in a UTS namespace named
 * `yacron2-<name>` so the store tells their hosts apart. A restarted node replaces its entry.
 */
export class NodeDaemons<Name extends string> {
  readonly daemons = new Map<Name, DaemonProcess>();

  constructor(
    readonly t: TeardownContext,
    readonly dir: string,
  ) {}

  /** Start `name`; resolves with its control API's base URL. */
  async start(name: Name): Promise<string> {
    const daemon = startDaemon(
      this.t,
      ['-c', join(this.dir, `${name}.yaml`), '--reload-interval', '1'],
      {
        env: { ...process.env, YC_NODE: name },
        hostname: `yacron2-${name}`,
      },
    );
    this.daemons.set(name, daemon);
    return webUrlOf(daemon);
  }

  get(name: Name): DaemonProcess {
    return this.daemons.get(name)!;
  }

  /** Every node's log messages, for a failure message. */
  logs(): string {
    return [...this.daemons]
      .map(
        ([name, daemon]) =>
          `\n--- ${name}:\n${daemon
            .logs()
            .map((r) => r.msg)
            .join('\n')}`,
      )
      .join('');
  }
}
