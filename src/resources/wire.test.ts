import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LiveRunUsage } from './run-usage.js';
import { renderNodeResources, renderRunningResources, renderRunResources } from './wire.js';

const usage = {
  cpuUserSeconds: 0.1 + 0.2,
  cpuSystemSeconds: 1.25,
  cpuTotalSeconds: 1.55,
  maxRssBytes: 52_428_800,
  samples: 3,
  series: [
    [1_767_225_600_250, 12.3456, 1000],
    [1_767_225_601_000, 99.999, 2000],
  ] as const,
};

test('a run record`s resources: the summary, and the series only where asked', () => {
  assert.deepEqual(renderRunResources(usage, false), {
    cpu_user_seconds: 0.3,
    cpu_system_seconds: 1.25,
    cpu_total_seconds: 1.55,
    max_rss_bytes: 52_428_800,
    samples: 3,
  });
  assert.deepEqual(renderRunResources(usage, true).series, [
    [1_767_225_600.25, 12.35, 1000],
    [1_767_225_601, 100, 2000],
  ]);
});

test('running_resources sums the sampled instances and is absent without a sample', () => {
  const live = (current: LiveRunUsage['current']): LiveRunUsage => ({
    runId: 'r',
    jobName: 'j',
    pid: 1,
    startedAtMs: 0,
    current,
    usage: { ...usage, series: [] },
  });
  assert.equal(renderRunningResources([live(null)]), undefined);
  assert.deepEqual(
    renderRunningResources([
      live({ cpuSeconds: 1.5, cpuPercent: 80, rssBytes: 100 }),
      live(null),
      live({ cpuSeconds: 2, cpuPercent: 70.004, rssBytes: 50 }),
    ]),
    { cpu_seconds: 3.5, cpu_percent: 150, rss_bytes: 150, instances: 2 },
  );
});

test('the node reading leaves out the process figures it does not have', () => {
  const base = {
    cpuPercent: 12.5,
    cpuCount: 2,
    memPercent: 40,
    memUsedBytes: 4,
    memTotalBytes: 10,
  };
  assert.deepEqual(renderNodeResources(base), {
    cpu_percent: 12.5,
    cpu_count: 2,
    mem_percent: 40,
    mem_used_bytes: 4,
    mem_total_bytes: 10,
  });
  assert.deepEqual(renderNodeResources({ ...base, procRssBytes: 7, procCpuPercent: 0 }), {
    ...renderNodeResources(base),
    proc_rss_bytes: 7,
    proc_cpu_percent: 0,
  });
});
