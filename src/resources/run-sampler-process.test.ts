// The sampler against real processes: a job started by the real runner (in its own session)
// whose grandchild burns CPU and holds ~60 MB.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { createRunner } from '../runner/index.js';
import { fixture, makeJob, NODE, TextSink } from '../runner/testing.js';
import { RunSampler } from './run-sampler.js';
import type { LiveRunUsage } from './run-usage.js';

const MIB = 1024 * 1024;

test('a job whose grandchild burns CPU and holds 60 MB shows CPU > 20% and RSS >= 40 MB', async () => {
  let onPass = (): void => undefined;
  const sampler = new RunSampler({
    clock: systemClock,
    logger: silentLogger(),
    onPass: () => onPass(),
  });
  const runner = createRunner({
    clock: systemClock,
    logger: silentLogger(),
    stdout: new TextSink(),
    stderr: new TextSink(),
    baseEnv: process.env,
  });
  // sh (the run's process) -> node (its child, the daemon's grandchild).
  const job = makeJob({
    name: 'burner',
    command: { kind: 'shell', script: `"${NODE}" "${fixture('burn-memory.js')}" 60 & wait` },
    captureStdout: true,
    killTimeoutMs: 1000,
  });
  const handle = runner.start({
    job,
    onSpawn: (pid) =>
      sampler.start({
        runId: 'run-1',
        jobName: job.name,
        pid,
        startedAtMs: systemClock.now(),
        intervalMs: 250,
        history: 240,
      }),
  });
  try {
    const busy = (live: LiveRunUsage | undefined): boolean =>
      (live?.current?.cpuPercent ?? 0) > 20 && (live?.current?.rssBytes ?? 0) >= 40 * MIB;
    // Bounded wait on the sampler's passes (no sleeping): a pass that sees the busy tree.
    const seen = await new Promise<LiveRunUsage | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(sampler.live('run-1')), 30_000);
      onPass = () => {
        const live = sampler.live('run-1');
        if (busy(live) && (live?.usage.samples ?? 0) >= 3) {
          clearTimeout(timer);
          resolve(live);
        }
      };
    });
    assert.ok(
      busy(seen),
      `expected CPU > 20% and RSS >= 40 MiB, got ${JSON.stringify(seen?.current)}`,
    );
    const usage = sampler.stop('run-1');
    assert.ok(usage);
    assert.ok(
      usage.series.some(([, cpu, rss]) => cpu > 20 && rss >= 40 * MIB),
      `a series point shows the busy tree: ${JSON.stringify(usage.series)}`,
    );
    assert.ok(usage.maxRssBytes >= 40 * MIB);
    assert.ok(usage.cpuUserSeconds + usage.cpuSystemSeconds > 0.1);
  } finally {
    sampler.close();
    await handle.cancel('cancelled');
    await handle.done;
  }
});
