// Worker: one real daemon (`node ROOT/bin/yacron2.js -c FILE`, a child process) with N jobs, of
// which 200 `burst-<i>` jobs fire together at a few given instants 5 s apart and the rest never
// fire during the run. Each burst job runs `echo "$EPOCHREALTIME"` under bash with its stdout
// inherited (the daemon's stdout is this worker's pipe), so every run prints the wall-clock
// instant its command began; start lateness = that instant − the scheduled second. Measured:
// the daemon's settled idle RSS before the first instant (VmRSS and RssAnon from /proc, and the
// same for its spawn helper child if it has one), then per instant the lateness of the 200 runs
// and the CPU the daemon (and its helper) used from 0.3 s before the instant until the next one.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { instantsInOneMinute, LAUNCH_BURST_JOBS, writeLaunchConfig } from '../lib/config-file.js';
import {
  collectStartInstants,
  cpuTicks,
  daemonEnv,
  delay,
  helperPidOf,
  latenessPerInstant,
  memoryOf,
  stopChild,
  waitUntil,
} from '../lib/proc.js';
import { intArg, reportSample, stringArg } from '../lib/worker-io.js';

const root = stringArg(0, 'root');
const jobs = intArg(1, 'jobs');
const variant = stringArg(2, 'variant'); // 'stateless' | 'state'
const workDir = stringArg(3, 'workDir');
const instants = intArg(4, 'instants');
const spawnPath = stringArg(5, 'spawnPath'); // 'default' | 'in-process' | 'node-helper'
const INSTANT_SPACING_S = 5;

const runDir = mkdtempSync(path.join(workDir, `launch-${jobs}-${variant}-`));
// Start-up of the daemon grows with the config (about 1 s per 10k jobs), then RSS settles.
const allowanceS = 10 + Math.ceil(jobs / 2_000);
const instantsS = instantsInOneMinute(
  Math.ceil(Date.now() / 1000) + allowanceS,
  instants,
  INSTANT_SPACING_S,
);
const firstInstantS = instantsS[0]!;
const configPath = path.join(runDir, 'config.yaml');
writeLaunchConfig(configPath, {
  jobs,
  instantsS,
  statePath: variant === 'state' ? path.join(runDir, 'store') : null,
});

const daemon = spawn(process.execPath, [path.join(root, 'bin/yacron2.js'), '-c', configPath], {
  stdio: ['ignore', 'pipe', 'pipe'],
  cwd: runDir,
  env: daemonEnv(spawnPath),
});
daemon.stderr.resume(); // the daemon's log lines: drained, not measured
const starts = collectStartInstants(daemon.stdout);
const exited = once(daemon, 'exit');
const pid = daemon.pid!;

// Idle: poll RSS every 500 ms until 0.5 s before the first instant; the settled value is the
// last reading (V8 hands back the pages the load grew into once allocation goes quiet).
const rssPolls: number[] = [];
while (Date.now() < firstInstantS * 1000 - 800) {
  await delay(500);
  rssPolls.push(memoryOf(pid).rssKb);
}
const idle = memoryOf(pid);
const helperPid = helperPidOf(pid);
const helperIdle = helperPid === null ? null : memoryOf(helperPid);

// CPU from 0.3 s before each instant to 0.4 s before the next one (or 4.6 s after the last);
// every run is counted in the latest instant at or before its start.
const cpu: { ticks: number; helperTicks: number }[] = [];
for (const instantS of instantsS) {
  await waitUntil(instantS * 1000 - 300);
  const before = cpuTicks(pid);
  const helperBefore = helperPid === null ? 0 : cpuTicks(helperPid);
  await waitUntil((instantS + INSTANT_SPACING_S) * 1000 - 400);
  cpu.push({
    ticks: cpuTicks(pid) - before,
    helperTicks: helperPid === null ? 0 : cpuTicks(helperPid) - helperBefore,
  });
}
const perInstant = latenessPerInstant(starts, instantsS).map((lateness, index) => ({
  runs: lateness.length,
  latenessMs: lateness,
  cpuTicks: cpu[index]?.ticks ?? Number.NaN,
  helperCpuTicks: cpu[index]?.helperTicks ?? Number.NaN,
}));
const after = memoryOf(pid);
await stopChild(daemon, exited);
rmSync(runDir, { recursive: true, force: true });

reportSample({
  jobs,
  variant,
  spawnPath,
  helperPid,
  burstJobs: LAUNCH_BURST_JOBS,
  idleRssKb: idle.rssKb,
  idleRssAnonKb: idle.rssAnonKb,
  rssPollsKb: rssPolls,
  helperRssKb: helperIdle?.rssKb ?? null,
  helperRssAnonKb: helperIdle?.rssAnonKb ?? null,
  rssAfterKb: after.rssKb,
  instants: perInstant,
});
