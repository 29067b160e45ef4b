// Worker: the cluster gate and the gossip round on the scheduling path. A 7-node mesh converges
// over the in-memory network on a FakeClock, then node 0 answers 1,000 distinct Leader jobs
// (cold: every rendezvous score computed) and the same jobs again (warm: memoised scores), in
// spread and single-leader mode; a round of all 7 nodes, and one /peer body of 512 job summaries
// parsed by a poller, are timed too; and 1,000 decisions of the scheduler's gate with election
// off (what every decision pays without a cluster section).
import { importFakes, importYacron2, intArg, reportSample, wallNowMs } from '../lib/worker-io.js';

const { cluster, common, leadership, logging } = await importYacron2();
const { StaticLeadershipSource } = await importFakes();
const repetitions = intArg(0, 'repetitions');

const JOBS = Array.from({ length: 1000 }, (_, index) => ({
  name: `job-${index}`,
  clusterPolicy: 'Leader' as const,
}));
const ID = `v1:${'1'.repeat(64)}`;

async function mesh(distribution: 'spread' | 'single-leader', summaries: number) {
  const clock = new common.FakeClock();
  const network = new cluster.MemoryNetwork();
  const hosts = Array.from({ length: 7 }, (_, index) => `n${index}:8443`);
  const jobs = new Map(
    Array.from({ length: summaries }, (_, index) => [
      `job-${index}`,
      { running: false, enabled: true, scheduledInSeconds: 30, last: null },
    ]),
  );
  const nodes = hosts.map(
    (host, index) =>
      new cluster.GossipNode(
        {
          nodeName: `node-${index}`,
          peers: hosts.filter((_, at) => at !== index),
          electLeader: true,
          distribution,
          driftAfter: 3,
          connectTimeoutMs: 1000,
        },
        {
          clock,
          transport: network.transportFor(String(index), [host]),
          logger: logging.silentLogger(),
          jobSetId: () => ID,
          jobSummaries: () => ({ jobs, truncated: false }),
        },
      ),
  );
  for (const [index, node] of nodes.entries()) {
    await network.transportFor(String(index), [hosts[index]!]).listen(node.handler);
  }
  for (let round = 0; round < 3; round++) for (const node of nodes) await node.runRound();
  return nodes;
}

function timeVerdicts(node: InstanceType<typeof cluster.GossipNode>): number {
  const source = new StaticLeadershipSource(true, node);
  const gate = new leadership.ClusterGate(source, logging.silentLogger());
  const start = wallNowMs();
  let allowed = 0;
  for (const job of JOBS) if (gate.verdict(job, 'schedule').kind === 'allow') allowed += 1;
  const elapsed = wallNowMs() - start;
  if (allowed < 0) throw new Error('unreachable');
  return elapsed;
}

/**
 * The scheduler's gate 2 as the daemon builds it without a cluster section (election off): what
 * every scheduled decision pays when clustering is not configured.
 */
function timeElectionOff(): number {
  const source = new StaticLeadershipSource(false, null);
  const logger = logging.silentLogger();
  const { gate } = leadership.schedulerSeams({
    gate: new leadership.ClusterGate(source, logger),
    deferrals: new leadership.DeferredReboots(source, logger),
    onPass: () => undefined,
  });
  const requests = JOBS.map((job) => ({
    job: job as unknown as Parameters<typeof gate>[0]['job'],
    trigger: 'schedule' as const,
    scheduledAtMs: 0,
  }));
  const start = wallNowMs();
  let allowed = 0;
  for (const request of requests) if (gate(request).kind === 'run') allowed += 1;
  const elapsed = wallNowMs() - start;
  if (allowed !== JOBS.length) throw new Error('election off must allow every job');
  return elapsed;
}

for (let repetition = 0; repetition < repetitions; repetition++) {
  timeElectionOff(); // warm-up: the first pass compiles the path
  reportSample({ kind: 'election-off', offMs: timeElectionOff() });
  for (const distribution of ['spread', 'single-leader'] as const) {
    const nodes = await mesh(distribution, 0);
    const cold = timeVerdicts(nodes[0]!);
    const warm = timeVerdicts(nodes[0]!);
    reportSample({ kind: 'verdicts', distribution, coldMs: cold, warmMs: warm });
  }
  const nodes = await mesh('spread', 512);
  const roundStart = wallNowMs();
  for (const node of nodes) await node.runRound();
  const roundMs = wallNowMs() - roundStart;
  const request = { method: 'GET', path: '/peer', headers: {}, body: new Uint8Array(0) };
  const TIMES = 50;
  const serveStart = wallNowMs();
  let body: Uint8Array = new Uint8Array(0);
  for (let serve = 0; serve < TIMES; serve++) body = nodes[1]!.handler(request).body;
  const serveMs = (wallNowMs() - serveStart) / TIMES;
  const parseStart = wallNowMs();
  for (let parse = 0; parse < TIMES; parse++) {
    if (!cluster.parsePeerBody(body, 0).ok) throw new Error('the body did not parse');
  }
  const parseMs = (wallNowMs() - parseStart) / TIMES;
  reportSample({ kind: 'round', roundMs, serveMs, parseMs, bodyBytes: body.byteLength });
}
