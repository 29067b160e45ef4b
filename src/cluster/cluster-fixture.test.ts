// Test helpers (no tests here): N real ClusterSupervisors (GossipManager, rounds, gate) in one
// process over a MemoryNetwork on one FakeClock. Certificates are stubbed: the transport is
// in-memory, so only the rotation snapshot is observable (a test can change it).
import type { ResolvedGossipCluster } from '../config/index.js';
import { ClusterGate, type ClusterPolicy, type ClusterVerdict } from '../leadership/index.js';
import { recordingLogger, type RecordingLogger } from '../logging/testing.js';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { MemoryNetwork } from './memory-transport.js';
import { ClusterSupervisor } from './supervisor.js';
import type { TlsFileSnapshot } from './tls-material.js';

export const INTERVAL_MS = 1_000;
export const JOB_SET_ID = `v1:${'1'.repeat(64)}`;

export interface NodeSpec {
  readonly name: string;
  /** Hosts of the other nodes this node lists (default: every other node's host). */
  readonly peers?: readonly string[];
  readonly electLeader?: boolean;
  readonly distribution?: 'single-leader' | 'spread';
  readonly jobSetId?: string;
}

export interface TestNode {
  readonly id: string;
  readonly host: string;
  readonly supervisor: ClusterSupervisor;
  readonly gate: ClusterGate;
  readonly logger: RecordingLogger;
  /** The files snapshot the supervisor sees (change it to simulate a certificate renewal). */
  files: TlsFileSnapshot;
  /** Make the next certificate load fail (a half-written rotation) or succeed. */
  tlsLoadable: boolean;
  jobSetId: string;
  config: ResolvedGossipCluster;
  verdict(job: string, policy: ClusterPolicy): ClusterVerdict;
}

export function gossipConfig(
  name: string,
  peers: readonly string[],
  overrides: Partial<ResolvedGossipCluster> = {},
): ResolvedGossipCluster {
  return {
    backend: 'gossip',
    nodeName: name,
    connectTimeoutMs: 500,
    electLeader: true,
    distribution: 'single-leader',
    advisories: [],
    shareNodeStats: false,
    source: { file: 'cluster.yaml', line: 1 },
    intervalMs: INTERVAL_MS,
    driftAfter: 3,
    listen: { text: `${name}:8443`, host: name, port: 8443 },
    tls: { ca: '/certs/ca.pem', cert: `/certs/${name}.pem`, key: `/certs/${name}.key` },
    peers,
    ...overrides,
  };
}

export class TestCluster {
  readonly clock = new FakeClock();
  readonly network = new MemoryNetwork();
  readonly nodes: TestNode[] = [];

  constructor(specs: readonly NodeSpec[]) {
    const hosts = specs.map((spec, index) => `n${index}:8443`);
    specs.forEach((spec, index) => {
      const id = String(index);
      const logger = recordingLogger();
      const node: TestNode = {
        id,
        host: hosts[index]!,
        logger,
        files: { ca: 'ca@1', cert: 'cert@1', key: 'key@1' },
        tlsLoadable: true,
        jobSetId: spec.jobSetId ?? JOB_SET_ID,
        config: gossipConfig(spec.name, spec.peers ?? hosts.filter((_, at) => at !== index), {
          electLeader: spec.electLeader ?? true,
          distribution: spec.distribution ?? 'single-leader',
        }),
        supervisor: undefined as unknown as ClusterSupervisor,
        gate: undefined as unknown as ClusterGate,
        verdict: (job, clusterPolicy) =>
          node.gate.verdict({ name: job, clusterPolicy }, 'schedule'),
      };
      const supervisor = new ClusterSupervisor({
        clock: this.clock,
        logger,
        jobSetId: () => node.jobSetId,
        loadTls: () =>
          node.tlsLoadable
            ? Promise.resolve({
                ca: Buffer.from('ca'),
                cert: Buffer.from('c'),
                key: Buffer.from('k'),
              })
            : Promise.reject(new Error('PEM routines::bad end line')),
        snapshotTls: () => Promise.resolve(node.files),
        createTransport: () => this.network.transportFor(id, [node.host]),
      });
      Object.assign(node, { supervisor, gate: new ClusterGate(supervisor, logger) });
      this.nodes.push(node);
    });
  }

  node(name: string): TestNode {
    const found = this.nodes.find((node) => node.config.nodeName === name);
    if (found === undefined) throw new Error(`no node ${name}`);
    return found;
  }

  /** Start every node in order (each runs its first round inline, as the daemon does). */
  async start(): Promise<void> {
    for (const node of this.nodes) await node.supervisor.reconcile(node.config);
  }

  /** Let `intervals` poll intervals pass (every node's loop runs its rounds). */
  async runIntervals(intervals: number): Promise<void> {
    for (let step = 0; step < intervals; step++) {
      await this.clock.advance(INTERVAL_MS);
      await flushMicrotasks(200);
    }
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) await node.supervisor.stop();
  }

  leaders(): string[] {
    return this.nodes
      .filter((node) => node.supervisor.current()?.isLeader() === true)
      .map((node) => node.config.nodeName);
  }
}
