// E2E: monitorResources and this node's readings through the built daemon. A monitored job's
// grandchild (sh -> sh -> node) holds ~60 MB and keeps a core busy: the live series, the run
// record (with its series) and /metrics show its CPU and memory; /node, /node/history and the
// state inspector answer from the same daemon.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  FIXTURES,
  getJson,
  getText,
  post,
  shellQuote,
  startDaemon,
  useTempDir,
  waitUntil,
  webUrlOf,
  writeConfig,
} from './harness.js';

const MIB = 1024 * 1024;

type Point = [number, number, number];
interface ResourcesBody {
  monitored: boolean;
  interval: number;
  live: { pid: number; series: Point[] }[];
  runs: {
    outcome: string;
    duration: number;
    resources: {
      cpu_total_seconds: number;
      max_rss_bytes: number;
      samples: number;
      series: Point[];
    };
  }[];
}

/** The value of the sample `name{labels}` in a text exposition (summed over matches). */
function sampleSum(exposition: string, name: string, jobName: string): number {
  let sum = 0;
  let found = false;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(`${name}{`) || !line.includes(`job_name="${jobName}"`)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    found = true;
  }
  assert.ok(found, `no ${name} sample for ${jobName} in:\n${exposition}`);
  return sum;
}

test(
  "a monitored job's grandchild shows its CPU and memory in the series, the run record and /metrics",
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const burner = `${shellQuote(process.execPath)} ${shellQuote(join(FIXTURES, 'burn-memory.js'))} 60`;
    const config = await writeConfig(
      dir,
      `jobs:
  - name: burn
    command: sh -c ${shellQuote(`${burner} & wait`)}
    schedule: "0 0 1 1 *"
    monitorResources:
      interval: 1
      history: 100
    killTimeout: 2
  - name: plain
    command: "true"
    schedule: "0 0 1 1 *"
web:
  listen:
    - http://127.0.0.1:0
  nodeHistory:
    interval: 1
    points: 10
state:
  path: ${shellQuote(join(dir, 'state'))}
`,
    );
    const daemon = startDaemon(t, ['-c', config]);
    const base = await webUrlOf(daemon);
    assert.equal(await post(`${base}/jobs/burn/start`), 200);

    // The live series shows the grandchild's load: > 20 % of a core and >= 40 MB resident.
    const live = await waitUntil(
      async () => {
        const body = await getJson<ResourcesBody>(`${base}/jobs/burn/resources`);
        const points = body.live[0]?.series ?? [];
        return points.some(([, cpu, rss]) => cpu > 20 && rss >= 40 * MIB) ? body : undefined;
      },
      'a live sample with CPU > 20 % and RSS >= 40 MB',
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.equal(live.monitored, true);
    assert.equal(live.interval, 1);
    const jobs = await getJson<{ name: string; running_resources?: { rss_bytes: number } }[]>(
      `${base}/jobs`,
    );
    const burnJob = jobs.find((job) => job.name === 'burn');
    assert.ok((burnJob?.running_resources?.rss_bytes ?? 0) >= 40 * MIB, JSON.stringify(burnJob));

    // The run ends (cancelled); its record keeps the totals and the series.
    await post(`${base}/jobs/burn/cancel`);
    const finished = await waitUntil(
      async () => (await getJson<ResourcesBody>(`${base}/jobs/burn/resources`)).runs[0],
      'the finished run in /resources',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const { resources } = finished;
    assert.equal(finished.outcome, 'cancelled');
    assert.ok(resources.max_rss_bytes >= 40 * MIB, JSON.stringify(resources));
    assert.ok(resources.samples >= 1);
    assert.ok(
      resources.series.some(([, cpu]) => cpu > 20),
      JSON.stringify(resources.series),
    );
    assert.ok(resources.cpu_total_seconds > 0, JSON.stringify(finished));
    const runs = await getJson<{ runs: { resources: { max_rss_bytes: number } | null }[] }>(
      `${base}/jobs/burn/runs`,
    );
    assert.equal(runs.runs.at(-1)?.resources?.max_rss_bytes, resources.max_rss_bytes);

    // /metrics carries the same run: its CPU (user + system) and peak RSS. (How much CPU the
    // burner got depends on the machine's load; the > 20 % is the series point above.)
    const metrics = await getText(`${base}/metrics`);
    const cpuSeconds = sampleSum(metrics, 'yacron2_job_cpu_seconds_total', 'burn');
    assert.ok(Math.abs(cpuSeconds - resources.cpu_total_seconds) < 0.02, `${cpuSeconds} s`);
    assert.equal(sampleSum(metrics, 'yacron2_job_peak_rss_bytes', 'burn'), resources.max_rss_bytes);
    assert.equal(
      sampleSum(metrics, 'yacron2_job_last_run_max_rss_bytes', 'burn'),
      resources.max_rss_bytes,
    );
    assert.ok(
      Math.abs(sampleSum(metrics, 'yacron2_job_last_run_cpu_seconds', 'burn') - cpuSeconds) < 0.02,
    );

    // An unmonitored job's run carries no resources.
    assert.equal(await post(`${base}/jobs/plain/start`), 200);
    const plain = await waitUntil(
      async () =>
        (await getJson<{ runs: { resources: unknown }[] }>(`${base}/jobs/plain/runs`)).runs[0],
      'the plain run',
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.equal(plain.resources, null);

    // /node, /node/history (the ring fills at its interval) and /state from the same daemon.
    const node = await getJson<{
      node_name: string;
      resources: { mem_total_bytes: number; cpu_count: number } | null;
    }>(`${base}/node`);
    assert.ok(node.node_name.length > 0);
    assert.ok(node.resources !== null && node.resources.mem_total_bytes > 0, JSON.stringify(node));
    assert.ok(node.resources.cpu_count >= 1);
    const history = await waitUntil(
      async () => {
        const body = await getJson<{ enabled: boolean; interval: number; points: Point[] }>(
          `${base}/node/history`,
        );
        return body.points.length >= 2 ? body : undefined;
      },
      'two node history points',
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    assert.equal(history.enabled, true);
    assert.equal(history.interval, 1);
    assert.ok(history.points.length <= 10);
    assert.ok(history.points.every(([, cpu, mem]) => cpu >= 0 && cpu <= 100 && mem > 0));

    const state = await waitUntil(
      async () => {
        const body = await getJson<{
          enabled: boolean;
          view: { backend: string; path: string; namespace: string };
          records: Record<string, { count: number }>;
        }>(`${base}/state`);
        return (body.records?.runs?.count ?? 0) >= 2 ? body : undefined;
      },
      'the two runs in the state inventory',
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    assert.equal(state.enabled, true);
    assert.equal(state.view.backend, 'filesystem');
    assert.equal(state.view.path, join(dir, 'state'));
    assert.equal(state.view.namespace, 'default');
    const ledger = await getJson<{ records: { resources: { series: Point[] } | null }[] }>(
      `${base}/state/records?stream=runs/burn`,
    );
    assert.ok((ledger.records[0]?.resources?.series.length ?? 0) >= 1, JSON.stringify(ledger));
    assert.equal((await fetch(`${base}/state/records?stream=logs/burn`)).status, 403);

    assert.equal(await daemon.stop(), 0);
  },
);
