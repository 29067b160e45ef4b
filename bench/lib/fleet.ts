// Real mTLS gossip fleets on 127.0.0.1 for the fleet group (cases/fleet.ts) and the hand-run
// probe (bench/fleet-cost.ts): N daemons × J jobs, each node with its own certificate from a
// throwaway openssl CA, every other node as a direct peer (no proxies), a control API. The
// fleet is started, waited on until it has converged (GET /cluster on every node: quorate, no
// conflict, every peer `agreed`, one leader named by all), left to settle, then measured over a
// window: utime + stime and VmRSS/RssAnon of each daemon from /proc (VmRSS also sampled every
// 5 s), and the same for each persistent child (our daemon's spawn helper; the jobs' short-lived
// processes are left out). Plain TypeScript on node: builtins only (the workers run it
// transpiled, without dist/ or src/), so any implementation whose config format is ours can be
// measured: the command is an argv prefix to which `-c FILE` is appended.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { cpuTicks, delay, memoryOf, TICKS_PER_SECOND } from './proc.js';
import { max, median, min, round } from './stats.js';

/** The shapes (nodes × jobs) the group runs and the probe defaults to. */
export const FLEET_SHAPES = ['1x100', '1x1000', '3x100', '10x100', '10x1000', '16x1000'] as const;

export interface FleetShape {
  readonly nodes: number;
  readonly jobs: number;
  /** `<nodes>x<jobs>`, as in the metric names. */
  readonly label: string;
}

export function parseShape(text: string): FleetShape {
  const match = /^(\d+)x(\d+)$/.exec(text.trim());
  const nodes = Number(match?.[1]);
  const jobs = Number(match?.[2]);
  if (match === null || nodes < 1 || jobs < 0) {
    throw new Error(`a fleet shape is NODESxJOBS (e.g. 10x1000), got '${text}'`);
  }
  return { nodes, jobs, label: `${nodes}x${jobs}` };
}

// ---------------------------------------------------------------------------------------------
// Certificates: the shape of src/cluster/test-tls-fixture.ts (EC P-256, SHA-256, EKU serverAuth
// + clientAuth, SANs DNS:<name> and IP:127.0.0.1), which the Python reference accepts too.

export interface FleetCa {
  readonly caPath: string;
  issue(name: string): { readonly cert: string; readonly key: string };
}

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A fresh CA in `dir` (created); leaves are written beside it. */
export function makeFleetCa(dir: string): FleetCa {
  mkdirSync(dir, { recursive: true });
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-sha256',
      '-days',
      '30',
      '-subj',
      '/CN=yacron2 bench fleet',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.pem',
    ],
    dir,
  );
  let serial = 1000;
  return {
    caPath: path.join(dir, 'ca.pem'),
    issue(name) {
      writeFileSync(
        path.join(dir, `${name}.ext`),
        [
          `subjectAltName=DNS:${name},IP:127.0.0.1`,
          'extendedKeyUsage=serverAuth,clientAuth',
          'basicConstraints=CA:FALSE',
          'keyUsage=critical,digitalSignature,keyEncipherment',
        ].join('\n'),
      );
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`], dir);
      openssl(
        ['req', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-out', `${name}.csr`],
        dir,
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(++serial),
          '-days',
          '30',
          '-sha256',
          '-extfile',
          `${name}.ext`,
          '-out',
          `${name}.pem`,
        ],
        dir,
      );
      return { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`) };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Configs.

/** `count` distinct free TCP ports on 127.0.0.1 (all held open at once, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let index = 0; index < count; index++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      return address.port;
    });
  } finally {
    await Promise.all(
      servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  }
}

export interface FleetNode {
  readonly name: string;
  readonly webPort: number;
  readonly listenPort: number;
  /** Every other node's cluster port. */
  readonly peerPorts: readonly number[];
  readonly tls: { readonly ca: string; readonly cert: string; readonly key: string };
}

/** A node's name: n00, n01, ... */
export function nodeName(index: number): string {
  return `n${String(index).padStart(2, '0')}`;
}

/** A schedule that never fires during a run: 03:00 UTC on 1 January (5 fields). */
export const IDLE_SCHEDULE = '0 3 1 1 *';

/**
 * A node's config: the `tick` Leader job every second (what a fleet is there for), `jobs` idle
 * jobs j0000… that never fire during a run, a control API, and the cluster section in the shape
 * of test/e2e/cluster-harness.ts nodeConfigYaml.
 */
export function fleetNodeYaml(node: FleetNode, jobs: number): string {
  const lines = [
    '# a bench fleet node (bench/lib/fleet.ts)',
    'jobs:',
    '  - name: tick',
    '    command: "true"',
    '    schedule: "* * * * * * *"',
    '    clusterPolicy: Leader',
    '    captureStderr: false',
  ];
  for (let index = 0; index < jobs; index++) {
    lines.push(
      `  - name: j${String(index).padStart(4, '0')}`,
      '    command: "true"',
      `    schedule: "${IDLE_SCHEDULE}"`,
    );
  }
  lines.push(
    'web:',
    '  listen:',
    `    - http://127.0.0.1:${node.webPort}`,
    'cluster:',
    `  listen: "127.0.0.1:${node.listenPort}"`,
    '  tls:',
    `    ca: ${node.tls.ca}`,
    `    cert: ${node.tls.cert}`,
    `    key: ${node.tls.key}`,
    '  peers:',
    // A lone node lists itself: `peers` is required, flow style (`[]`) is refused, and both
    // implementations drop an entry naming their own listen address (a cluster of 1).
    ...(node.peerPorts.length === 0 ? [node.listenPort] : node.peerPorts).map(
      (port) => `    - host: "127.0.0.1:${port}"`,
    ),
    `  nodeName: ${node.name}`,
    '  interval: 1',
    '  connectTimeout: 5',
    '  electLeader: true',
    '  distribution: single-leader',
  );
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// Convergence.

/** The fields of GET /cluster the wait reads (ours and the Python reference's alike). */
interface ClusterView {
  readonly enabled?: boolean;
  readonly quorate?: boolean;
  readonly conflict?: boolean;
  readonly leader?: string | null;
  readonly peers?: readonly { readonly status?: string }[];
}

async function clusterView(webPort: number): Promise<ClusterView> {
  const response = await fetch(`http://127.0.0.1:${webPort}/cluster`, {
    signal: AbortSignal.timeout(5_000),
  });
  if (!response.ok) throw new Error(`GET /cluster: HTTP ${response.status}`);
  return (await response.json()) as ClusterView;
}

/**
 * Every node's view once, and whether they make a converged fleet: each answers, is quorate
 * without a conflict, sees its N-1 peers `agreed`, and all name the same leader. `why` says
 * what is missing otherwise.
 */
async function fleetState(
  nodes: readonly FleetNode[],
): Promise<{ converged: boolean; leader: string | null; why: string }> {
  const views = await Promise.all(
    nodes.map((node) =>
      clusterView(node.webPort).then(
        (view) => ({ node, view, error: null }),
        (error: unknown) => ({ node, view: null, error: String(error) }),
      ),
    ),
  );
  const problems: string[] = [];
  const leaders = new Set<string | null>();
  for (const { node, view, error } of views) {
    if (view === null) {
      problems.push(`${node.name}: no answer (${error})`);
      continue;
    }
    leaders.add(view.leader ?? null);
    const agreed = (view.peers ?? []).filter((peer) => peer.status === 'agreed').length;
    if (view.enabled !== true) problems.push(`${node.name}: cluster not enabled`);
    else if (view.conflict === true) problems.push(`${node.name}: conflict`);
    else if (view.quorate !== true) problems.push(`${node.name}: not quorate`);
    else if (agreed !== nodes.length - 1) {
      problems.push(`${node.name}: ${agreed}/${nodes.length - 1} peers agreed`);
    }
  }
  const [leader] = leaders;
  if (problems.length === 0 && (leaders.size !== 1 || leader === null || leader === undefined)) {
    problems.push(`leaders named: ${[...leaders].map(String).join(', ')}`);
  }
  const shown = problems.slice(0, 4).join('; ') + (problems.length > 4 ? '; ...' : '');
  return { converged: problems.length === 0, leader: leader ?? null, why: shown };
}

// ---------------------------------------------------------------------------------------------
// Processes.

/** Field `index` (0-based, after the command name) of /proc/<pid>/stat: 1 = ppid, 19 = start. */
function statField(pid: number, index: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[index] ?? null;
  } catch {
    return null;
  }
}

/** A process identity that survives pid reuse: pid and start time. */
interface ProcessId {
  readonly pid: number;
  readonly startTime: string;
}

/** The children of `pid` now (from every thread's `children` list, else a /proc ppid scan). */
function childrenOf(pid: number): ProcessId[] {
  const pids = new Set<number>();
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of text === '' ? [] : text.split(/\s+/)) pids.add(Number(child));
    }
  } catch {
    for (const entry of readdirSync('/proc')) {
      if (/^\d+$/.test(entry) && statField(Number(entry), 1) === String(pid)) {
        pids.add(Number(entry));
      }
    }
  }
  return [...pids].flatMap((child) => {
    const startTime = statField(child, 19);
    return startTime === null ? [] : [{ pid: child, startTime }];
  });
}

function sameProcess(id: ProcessId): boolean {
  return statField(id.pid, 19) === id.startTime;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

interface Daemon {
  readonly node: FleetNode;
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
  readonly logPath: string;
}

function logTail(daemon: Daemon): string {
  try {
    return readFileSync(daemon.logPath, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '';
  }
}

/** SIGTERM to all, up to 15 s for them to exit, SIGKILL to what is left (daemons, helpers). */
async function stopAll(daemons: readonly Daemon[], helpers: readonly ProcessId[]): Promise<void> {
  for (const daemon of daemons) {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
      daemon.child.kill('SIGTERM');
    }
  }
  await Promise.race([Promise.all(daemons.map((daemon) => daemon.exited)), delay(15_000)]);
  for (const daemon of daemons) {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) {
      daemon.child.kill('SIGKILL');
      await daemon.exited;
    }
  }
  await delay(200);
  for (const helper of helpers) {
    try {
      if (sameProcess(helper)) process.kill(helper.pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The measurement.

export interface FleetOptions {
  /** The daemon command, argv style; `-c FILE` is appended. */
  readonly command: readonly string[];
  readonly shape: FleetShape;
  /** A directory under which the fleet's temp dir is made (and removed). */
  readonly parentDir: string;
  readonly settleMs: number;
  readonly windowMs: number;
  /** Bound on start-to-converged. */
  readonly convergeTimeoutMs: number;
  readonly sampleEveryMs?: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly progress?: (message: string) => void;
}

export interface ProcessReading {
  readonly pid: number;
  /** VmRSS and RssAnon at the end of the window, kB. */
  readonly rssKb: number;
  readonly rssAnonKb: number;
  /** utime + stime over the window, seconds per minute. */
  readonly cpuSPerMin: number;
}

export interface NodeReading extends ProcessReading {
  readonly name: string;
  readonly isLeader: boolean;
  /** Median of the VmRSS samples taken every sampleEveryMs during the window, kB. */
  readonly rssMedianKb: number;
  /** Children alive (same pid and start time) at both ends of the window. */
  readonly persistentChildren: readonly (ProcessReading & { readonly command: string })[];
}

export interface FleetResult {
  readonly shape: string;
  readonly nodes: readonly NodeReading[];
  readonly leader: string | null;
  /** From the first spawn to the first converged poll. */
  readonly convergeMs: number;
  readonly windowS: number;
  /** Whether the fleet was still converged on the same leader right after the window. */
  readonly convergedAfterWindow: boolean;
  readonly loadAvg1m: number;
}

/** Why a fleet could not be measured (no convergence, a daemon exited). */
export class FleetError extends Error {
  override readonly name = 'FleetError';
}

/** Writes the configs, starts the fleet, waits for convergence, measures, stops, cleans up. */
export async function measureFleet(options: FleetOptions): Promise<FleetResult> {
  const { shape } = options;
  const progress = options.progress ?? ((): void => undefined);
  const dir = mkdtempSync(path.join(options.parentDir, `fleet-${shape.label}-`));
  const daemons: Daemon[] = [];
  const helpers: ProcessId[] = [];
  try {
    const ca = makeFleetCa(path.join(dir, 'tls'));
    const ports = await freePorts(2 * shape.nodes);
    const nodes: FleetNode[] = Array.from({ length: shape.nodes }, (_, index) => {
      const name = nodeName(index);
      const { cert, key } = ca.issue(name);
      return {
        name,
        webPort: ports[2 * index]!,
        listenPort: ports[2 * index + 1]!,
        peerPorts: ports.filter((_, at) => at % 2 === 1 && at !== 2 * index + 1),
        tls: { ca: ca.caPath, cert, key },
      };
    });
    const startedAt = performance.now();
    for (const node of nodes) {
      const configPath = path.join(dir, `${node.name}.yaml`);
      writeFileSync(configPath, fleetNodeYaml(node, shape.jobs));
      // The daemon's output goes to a file (a pipe left unread would fill and block it).
      const logPath = path.join(dir, `${node.name}.log`);
      const log = openSync(logPath, 'w');
      const [program, ...args] = options.command;
      const child = spawn(program!, [...args, '-c', configPath], {
        stdio: ['ignore', log, log],
        cwd: dir,
        env: options.env ?? process.env,
      });
      closeSync(log);
      const exited = once(child, 'exit').catch(() => undefined);
      child.on('error', () => undefined);
      daemons.push({ node, child, exited, logPath });
    }
    const deadline = startedAt + options.convergeTimeoutMs;
    let state = { converged: false, leader: null as string | null, why: 'not polled yet' };
    const checkAlive = (): void => {
      const dead = daemons.find(
        (daemon) =>
          daemon.child.exitCode !== null || daemon.child.signalCode !== null || !daemon.child.pid,
      );
      if (dead !== undefined) {
        const how = dead.child.signalCode ?? String(dead.child.exitCode);
        throw new FleetError(`${shape.label}: ${dead.node.name} exited (${how}): ${logTail(dead)}`);
      }
    };
    for (;;) {
      checkAlive();
      state = await fleetState(nodes);
      if (state.converged || performance.now() > deadline) break;
      await delay(500);
    }
    const convergeMs = performance.now() - startedAt;
    if (!state.converged) {
      throw new FleetError(
        `${shape.label}: not converged after ${Math.round(convergeMs / 1000)} s: ${state.why}`,
      );
    }
    progress(
      `${shape.label}: converged in ${(convergeMs / 1000).toFixed(1)} s (leader ${String(state.leader)}), settling ${options.settleMs / 1000} s`,
    );
    await delay(options.settleMs);

    const pids = daemons.map((daemon) => daemon.child.pid!);
    const childrenAtStart = pids.map(childrenOf);
    const firstTicks = pids.map(cpuTicks);
    const childTicks = childrenAtStart.map((children) =>
      children.map((child) => (sameProcess(child) ? cpuTicks(child.pid) : Number.NaN)),
    );
    const windowStart = performance.now();
    const rssSamples: number[][] = pids.map(() => []);
    const sampleEveryMs = options.sampleEveryMs ?? 5_000;
    for (;;) {
      checkAlive();
      pids.forEach((pid, index) => rssSamples[index]!.push(memoryOf(pid).rssKb));
      const next = performance.now() + sampleEveryMs;
      if (next - windowStart >= options.windowMs) break;
      await delay(next - performance.now());
    }
    await delay(windowStart + options.windowMs - performance.now());
    checkAlive();
    const lastTicks = pids.map(cpuTicks);
    const minutes = (performance.now() - windowStart) / 60_000;
    // Rounded to 0.1 ms of CPU per minute: ticks are 10 ms, so more digits are noise.
    const perMinute = (ticks: number): number =>
      Math.round((ticks / TICKS_PER_SECOND / minutes) * 10_000) / 10_000;
    const readings: NodeReading[] = daemons.map((daemon, index) => {
      const pid = pids[index]!;
      const memory = memoryOf(pid);
      rssSamples[index]!.push(memory.rssKb);
      const persistent = childrenAtStart[index]!.flatMap((child, at) => {
        if (!sameProcess(child)) return [];
        helpers.push(child);
        const childMemory = memoryOf(child.pid);
        return [
          {
            pid: child.pid,
            command: commandOf(child.pid),
            rssKb: childMemory.rssKb,
            rssAnonKb: childMemory.rssAnonKb,
            cpuSPerMin: perMinute(cpuTicks(child.pid) - childTicks[index]![at]!),
          },
        ];
      });
      return {
        name: daemon.node.name,
        pid,
        isLeader: daemon.node.name === state.leader,
        rssKb: memory.rssKb,
        rssAnonKb: memory.rssAnonKb,
        rssMedianKb: median(rssSamples[index]!),
        cpuSPerMin: perMinute(lastTicks[index]! - firstTicks[index]!),
        persistentChildren: persistent,
      };
    });
    const loadAvg1m = loadavg()[0] ?? Number.NaN;
    const after = await fleetState(nodes);
    return {
      shape: shape.label,
      nodes: readings,
      leader: state.leader,
      convergeMs: Math.round(convergeMs),
      windowS: Math.round(minutes * 60_000) / 1000,
      convergedAfterWindow: after.converged && after.leader === state.leader,
      loadAvg1m,
    };
  } finally {
    // Every persistent child (the helpers) is known only once measured: take them now too.
    for (const daemon of daemons) {
      if (daemon.child.pid !== undefined) helpers.push(...childrenOf(daemon.child.pid));
    }
    await stopAll(daemons, helpers);
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Summaries.

export interface Spread {
  readonly median: number | null;
  readonly min: number | null;
  readonly max: number | null;
}

export function spread(values: readonly number[], digits = 2): Spread {
  return {
    median: round(median(values), digits),
    min: round(min(values), digits),
    max: round(max(values), digits),
  };
}

export interface FleetSummary {
  readonly shape: string;
  /** Per-node VmRSS at the end of the window, MB. */
  readonly rssMB: Spread;
  /** Per-node median VmRSS over the window's samples, MB. */
  readonly rssSampledMB: Spread;
  readonly rssAnonMB: Spread;
  /** Per-node daemon CPU, seconds per minute. */
  readonly cpuSPerMin: Spread;
  /** The leader's CPU (it runs `tick`), s/min. */
  readonly leaderCpuSPerMin: number | null;
  /** Per-node persistent child (the spawn helper): VmRSS MB, CPU s/min; null without one. */
  readonly helperRssMB: Spread | null;
  readonly helperCpuSPerMin: Spread | null;
  readonly helperCommand: string | null;
  readonly nodesWithoutHelper: number;
  readonly convergeS: number | null;
  readonly convergedAfterWindow: boolean;
  readonly windowS: number | null;
  readonly loadAvg1m: number | null;
}

export function summarize(result: FleetResult): FleetSummary {
  const mb = (kb: number): number => kb / 1024;
  const helpers = result.nodes.flatMap((node) => node.persistentChildren);
  const leader = result.nodes.find((node) => node.isLeader);
  return {
    shape: result.shape,
    rssMB: spread(
      result.nodes.map((node) => mb(node.rssKb)),
      1,
    ),
    rssSampledMB: spread(
      result.nodes.map((node) => mb(node.rssMedianKb)),
      1,
    ),
    rssAnonMB: spread(
      result.nodes.map((node) => mb(node.rssAnonKb)),
      1,
    ),
    cpuSPerMin: spread(
      result.nodes.map((node) => node.cpuSPerMin),
      3,
    ),
    leaderCpuSPerMin: leader === undefined ? null : round(leader.cpuSPerMin, 3),
    helperRssMB:
      helpers.length === 0
        ? null
        : spread(
            helpers.map((h) => mb(h.rssKb)),
            2,
          ),
    helperCpuSPerMin:
      helpers.length === 0
        ? null
        : spread(
            helpers.map((h) => h.cpuSPerMin),
            3,
          ),
    helperCommand: helpers[0]?.command ?? null,
    nodesWithoutHelper: result.nodes.filter((node) => node.persistentChildren.length === 0).length,
    convergeS: round(result.convergeMs / 1000, 1),
    convergedAfterWindow: result.convergedAfterWindow,
    windowS: round(result.windowS, 1),
    loadAvg1m: round(result.loadAvg1m, 2),
  };
}
