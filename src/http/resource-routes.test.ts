// GET /jobs/{name}/resources, `running_resources` in the job objects, GET /node and GET
// /node/history through inject() (docs/http-api.md), over test views and a real
// RunSampler reading a fake /proc.
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeProc } from '../resources/testing.js';
import {
  NodeHistory,
  RunSampler,
  type LiveRunUsage,
  type NodeResources,
  type RunUsage,
} from '../resources/index.js';
import { silentLogger } from '../logging/index.js';
import { makeJob } from '../config/testing.js';
import type { RunSummary } from '../scheduler/index.js';
import {
  createApiFixture,
  T0,
  type ApiFixture,
  type ApiFixtureOptions,
} from './http-fixture.test.js';
import { renderRunRecord } from './run-records.js';
import type { MonitoredRun, NodeView, ResourcesView } from './types.js';

const HEADERS = { 'X-Operator': 'yes' };
const MONITORED = { enabled: true, intervalMs: 2500, history: 240 };

function usage(n: number): RunUsage {
  return {
    cpuUserSeconds: n,
    cpuSystemSeconds: 0.5,
    cpuTotalSeconds: n + 0.5,
    maxRssBytes: 1000 * n,
    samples: 2,
    series: [
      [T0 + n * 1000, 10 * n, 500 * n],
      [T0 + n * 1000 + 500, 20 * n, 1000 * n],
    ],
  };
}

function summary(n: number): RunSummary {
  return {
    outcome: 'success',
    exitCode: 0,
    startedAtMs: T0 + n * 1000,
    finishedAtMs: T0 + n * 1000 + 900,
    durationMs: 900,
    failReason: null,
    resources: null,
  };
}

const record = (n: number) => renderRunRecord(summary(n));

function live(overrides: Partial<LiveRunUsage> = {}): LiveRunUsage {
  return {
    runId: 'r1',
    jobName: 'boot',
    pid: 1000,
    startedAtMs: T0,
    current: { cpuSeconds: 1.25, cpuPercent: 42.123, rssBytes: 4096 },
    usage: usage(1),
    ...overrides,
  };
}

/** A ResourcesView over fixed values. */
function fixedResources(
  runs: readonly MonitoredRun[],
  lives: readonly LiveRunUsage[] = [],
): ResourcesView {
  return {
    liveRuns: (name) => lives.filter((entry) => entry.jobName === name),
    monitoredRuns: (name) => (name === 'boot' ? runs : []),
  };
}

async function withApi(
  options: ApiFixtureOptions,
  run: (api: ApiFixture) => Promise<void>,
): Promise<void> {
  const api = await createApiFixture(
    [
      makeJob({ name: 'boot', schedule: '@reboot', monitorResources: MONITORED }),
      makeJob({ name: 'plain', schedule: '* * * * *' }),
    ],
    { web: { headers: HEADERS }, ...options },
  );
  try {
    await run(api);
  } finally {
    await api.close();
  }
}

const runs25 = Array.from({ length: 25 }, (_, i) => ({
  run: summary(i + 1),
  usage: usage(i + 1),
}));

void describe('GET /jobs/{name}/resources', () => {
  void it('answers the job`s monitoring settings, its sampled live runs and its newest runs with series', () =>
    withApi(
      {
        resources: fixedResources(runs25, [
          live(),
          live({ runId: 'r2', pid: 1001, current: null }),
        ]),
      },
      async ({ app }) => {
        const response = await app.inject({ method: 'GET', url: '/jobs/boot/resources' });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['x-operator'], 'yes');
        const body = response.json();
        assert.equal(body.name, 'boot');
        assert.equal(body.monitored, true);
        assert.equal(body.interval, 2.5);
        assert.deepEqual(body.live, [
          {
            started_at: '2026-01-01T00:00:00+00:00',
            pid: 1000,
            current: { cpu_seconds: 1.25, cpu_percent: 42.12, rss_bytes: 4096 },
            series: [
              [1767225601, 10, 500],
              [1767225601.5, 20, 1000],
            ],
          },
        ]);
        assert.equal(body.runs.length, 20, 'the newest 20 by default');
        assert.equal(body.runs[0].started_at, record(6).started_at, 'oldest first');
        assert.deepEqual(body.runs[19], {
          ...record(25),
          resources: {
            cpu_user_seconds: 25,
            cpu_system_seconds: 0.5,
            cpu_total_seconds: 25.5,
            max_rss_bytes: 25_000,
            samples: 2,
            series: [
              [1767225625, 250, 12_500],
              [1767225625.5, 500, 25_000],
            ],
          },
        });
      },
    ));

  void it('takes ?runs=N clamped to [0, 50]; a bad value is the default, never a 400', () =>
    withApi({ resources: fixedResources(runs25) }, async ({ app }) => {
      const count = async (query: string): Promise<number> => {
        const response = await app.inject({ method: 'GET', url: `/jobs/boot/resources${query}` });
        assert.equal(response.statusCode, 200, query);
        return response.json<{ runs: unknown[] }>().runs.length;
      };
      assert.equal(await count('?runs=3'), 3);
      assert.equal(await count('?runs=0'), 0);
      assert.equal(await count('?runs=-4'), 0);
      assert.equal(await count('?runs=999'), 25);
      assert.equal(await count('?runs=%2B7'), 7);
      assert.equal(await count('?runs=abc'), 20);
      assert.equal(await count('?runs=1.5'), 20);
      assert.equal(await count('?runs='), 20);
      assert.equal(await count('?runs=2&runs=9'), 2);
    }));

  void it('an unmonitored job answers monitored false and no runs; unknown jobs are a bare 404', () =>
    withApi({ resources: fixedResources(runs25) }, async ({ app }) => {
      const plain = await app.inject({ method: 'GET', url: '/jobs/plain/resources' });
      assert.deepEqual(plain.json(), {
        name: 'plain',
        monitored: false,
        interval: 1,
        live: [],
        runs: [],
      });
      const unknown = await app.inject({ method: 'GET', url: '/jobs/nope/resources' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.body, '404: Not Found');
      assert.equal(unknown.headers['x-operator'], undefined);
    }));

  void it('is not served while the daemon hands in no resources view', () =>
    withApi({}, async ({ app }) => {
      const response = await app.inject({ method: 'GET', url: '/jobs/boot/resources' });
      assert.equal(response.statusCode, 404);
    }));
});

void describe('running_resources in GET /jobs and /jobs/{name}', () => {
  void it('sums the sampled instances of a running monitored job, after `history`', () =>
    withApi(
      {
        resources: fixedResources(
          [],
          [
            live(),
            live({ runId: 'r2', current: { cpuSeconds: 1, cpuPercent: 100, rssBytes: 4096 } }),
          ],
        ),
      },
      async ({ app }) => {
        const jobs = (await app.inject({ method: 'GET', url: '/jobs' })).json<
          Record<string, unknown>[]
        >();
        const boot = jobs.find((job) => job.name === 'boot')!;
        assert.equal(boot.running, true);
        assert.deepEqual(boot.running_resources, {
          cpu_seconds: 2.25,
          cpu_percent: 142.12,
          rss_bytes: 8192,
          instances: 2,
        });
        const keys = Object.keys(boot);
        assert.equal(keys[keys.indexOf('history') + 1], 'running_resources');
        assert.equal('running_resources' in jobs.find((job) => job.name === 'plain')!, false);
        const single = (await app.inject({ method: 'GET', url: '/jobs/boot' })).json();
        assert.deepEqual(single.running_resources, boot.running_resources);
      },
    ));

  void it('is absent while no instance has a sample', () =>
    withApi({ resources: fixedResources([], [live({ current: null })]) }, async ({ app }) => {
      const boot = (await app.inject({ method: 'GET', url: '/jobs/boot' })).json();
      assert.equal(boot.running, true);
      assert.equal('running_resources' in boot, false);
    }));

  void it('reads the live runs from a RunSampler as they are sampled', async () => {
    const proc = new FakeProc().add(
      { pid: 1, ppid: 0 },
      { pid: 1000, ppid: 1, userTicks: 50, rssPages: 10 },
    );
    let sampler: RunSampler | undefined;
    const resources: ResourcesView = {
      liveRuns: (name) => sampler?.liveOfJob(name) ?? [],
      monitoredRuns: () => [],
    };
    await withApi({ resources }, async ({ app, clock }) => {
      sampler = new RunSampler({
        clock,
        logger: silentLogger(),
        source: proc,
        constants: { clockTicksPerSecond: 100, pageSizeBytes: 4096 },
      });
      sampler.start({
        runId: 'r',
        jobName: 'boot',
        pid: 1000,
        startedAtMs: clock.now(),
        intervalMs: 1000,
        history: 240,
      });
      assert.equal('running_resources' in (await app.inject('/jobs/boot')).json(), false);
      await clock.advance(250);
      const boot = (await app.inject('/jobs/boot')).json();
      assert.deepEqual(boot.running_resources, {
        cpu_seconds: 0.5,
        cpu_percent: 200,
        rss_bytes: 40_960,
        instances: 1,
      });
      const body = (await app.inject('/jobs/boot/resources')).json();
      assert.equal(body.live.length, 1);
      assert.equal(body.live[0].pid, 1000);
      sampler.close();
    });
  });
});

void describe('GET /node and /node/history', () => {
  const reading: NodeResources = {
    cpuPercent: 12.5,
    cpuCount: 2,
    memPercent: 40,
    memUsedBytes: 400,
    memTotalBytes: 1000,
    procRssBytes: 77,
    procCpuPercent: 1.5,
  };

  void it('answers the node name and its reading, with web.headers', () => {
    const node: NodeView = {
      nodeName: () => 'node-a',
      reading: () => reading,
      history: () => ({ enabled: false, intervalMs: null, points: [] }),
    };
    return withApi({ node }, async ({ app }) => {
      const response = await app.inject({ method: 'GET', url: '/node' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-operator'], 'yes');
      assert.deepEqual(response.json(), {
        node_name: 'node-a',
        resources: {
          cpu_percent: 12.5,
          cpu_count: 2,
          mem_percent: 40,
          mem_used_bytes: 400,
          mem_total_bytes: 1000,
          proc_rss_bytes: 77,
          proc_cpu_percent: 1.5,
        },
      });
      const history = await app.inject({ method: 'GET', url: '/node/history' });
      assert.deepEqual(history.json(), {
        node_name: 'node-a',
        enabled: false,
        interval: null,
        points: [],
      });
    });
  });

  void it('resources is null when the host cannot be sampled', () => {
    const node: NodeView = {
      nodeName: () => 'node-a',
      reading: () => null,
      history: () => ({ enabled: false, intervalMs: null, points: [] }),
    };
    return withApi({ node }, async ({ app }) => {
      assert.deepEqual((await app.inject('/node')).json(), {
        node_name: 'node-a',
        resources: null,
      });
    });
  });

  void it('serves the nodeHistory ring: interval in seconds, points [t, cpu, mem] oldest first', async () => {
    let history: NodeHistory | undefined;
    const node: NodeView = {
      nodeName: () => 'node-a',
      reading: () => reading,
      history: () => history!.snapshot(),
    };
    await withApi({ node }, async ({ app, clock }) => {
      history = new NodeHistory({ clock, reader: { read: () => reading } });
      history.configure({ enabled: true, intervalMs: 5000, points: 720 });
      await clock.advance(10_000);
      const start = clock.now() / 1000 - 10;
      assert.deepEqual((await app.inject('/node/history')).json(), {
        node_name: 'node-a',
        enabled: true,
        interval: 5,
        points: [
          [start + 5, 12.5, 40],
          [start + 10, 12.5, 40],
        ],
      });
      history.close();
    });
  });

  void it('is not served while the daemon hands in no node view', () =>
    withApi({}, async ({ app }) => {
      assert.equal((await app.inject('/node')).statusCode, 404);
      assert.equal((await app.inject('/node/history')).statusCode, 404);
    }));
});
