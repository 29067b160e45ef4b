// Worker: the cost of sampling monitored runs. 100 job-like process trees (`sh -c 'sleep & wait'`,
// each in its own session like a run) are monitored at interval 1 s by the real RunSampler on
// the system clock; the worker does nothing else. For each count of extra, unmonitored
// processes on the host (sleepers added cumulatively), it measures the CPU the worker used over
// a window (process.cpuUsage / wall time, in % of one core), the duration of every pass (the
// sampler's timer callback, timed by a wrapping clock), the first pass after the runs were added
// (a full re-read of /proc) apart from the steady ones, the CPU time of each pass (immune to the
// waits a loaded machine adds to wall time), and the stat files read per pass.
// Arguments: runs, intervalMs, windowMs, extra process counts (comma-separated, ascending).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { importYacron2, intArg, reportSample, stringArg } from '../lib/worker-io.js';

const { common, logging, resources } = await importYacron2();
const runCount = intArg(0, 'runs');
const intervalMs = intArg(1, 'intervalMs');
const windowMs = intArg(2, 'windowMs');
const extras = stringArg(3, 'extras').split(',').map(Number);

const children: ChildProcess[] = [];

/** A detached process (its own session and group, as a run is), stdio ignored. */
function spawnDetached(script: string): ChildProcess {
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' });
  children.push(child);
  return child;
}

function killAll(): void {
  for (const child of children) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.on('exit', killAll);

function hostProcesses(): number {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** CPU of this process in % of one core over a window in which `during` runs. */
async function cpuPercentOver(ms: number): Promise<number> {
  const before = process.cpuUsage();
  const start = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / 1000 / (performance.now() - start)) * 100;
}

const trees = Array.from({ length: runCount }, () => spawnDetached('sleep 100000 & wait'));
// Let every tree fork its sleep.
await sleep(1000);
const idleCpuPercent = await cpuPercentOver(Math.min(windowMs, 5000));

let sleepers = 0;
for (const extra of extras) {
  // One process per extra sleeper (exec replaces the shell), in batches.
  while (sleepers < extra) {
    const batch = Math.min(100, extra - sleepers);
    spawnDetached(Array.from({ length: batch }, () => 'sleep 100000 &').join(' ') + ' wait');
    sleepers += batch;
  }
  await sleep(1000);
  const passMs: number[] = [];
  const passCpuMs: number[] = [];
  const clock = {
    ...common.systemClock,
    setTimer(callback: () => void, delayMs: number) {
      return common.systemClock.setTimer(() => {
        const start = performance.now();
        const cpu = process.cpuUsage();
        callback();
        const used = process.cpuUsage(cpu);
        passMs.push(performance.now() - start);
        passCpuMs.push((used.user + used.system) / 1000);
      }, delayMs);
    },
  };
  const sampler = new resources.RunSampler({ clock, logger: logging.silentLogger() });
  trees.forEach((tree, index) =>
    sampler.start({
      runId: `run-${index}`,
      jobName: `job-${index % 10}`,
      pid: tree.pid ?? 0,
      startedAtMs: Date.now(),
      intervalMs,
      history: 240,
    }),
  );
  // The first pass re-reads all of /proc (the runs were just added); then steady passes.
  while (passMs.length === 0) await sleep(50);
  const firstPassMs = passMs[0]!;
  const readsAfterFirst = sampler.stats.reads;
  const passesBefore = sampler.stats.passes;
  const cpuPercent = await cpuPercentOver(windowMs);
  const steady = passMs.slice(1);
  const steadyCpu = passCpuMs.slice(1);
  const passes = sampler.stats.passes - passesBefore;
  const sampled = sampler.liveOfJob('job-0').filter((live) => live.current !== null).length;
  reportSample({
    extraProcesses: extra,
    hostProcesses: hostProcesses(),
    runs: runCount,
    intervalMs,
    windowMs,
    idleCpuPercent,
    cpuPercent,
    firstPassMs,
    firstPassCpuMs: passCpuMs[0],
    steadyPassMs: steady,
    steadyPassCpuMs: steadyCpu,
    passes,
    statReadsFirstPass: readsAfterFirst,
    statReadsPerSteadyPass: passes > 0 ? (sampler.stats.reads - readsAfterFirst) / passes : null,
    sampledRunsOfJob0: sampled,
    treeRssBytes: sampler.liveOfJob('job-0')[0]?.current?.rssBytes ?? null,
  });
  sampler.close();
}
killAll();
