// Quick CPU-per-launch probe (not a bench group, not in CI): real daemons (`node ROOT/bin/yacron2.js
// -c FILE`) on the launch group's 1k config (lib/config-file.ts writeLaunchConfig) whose 200 burst
// jobs fire at --instants instants 3 s apart, all in one minute (a 7-field expression that lists
// seconds fires only in the minutes it names). CPU is read from /proc/PID/task/*/schedstat
// (nanoseconds on the CPU per thread, summed; the group's `utime + stime` counts 10 ms ticks, too
// coarse to tell two builds apart with a few daemons), from just before the second instant (the
// first one compiles) to 2.7 s after the last, idle seconds and V8's collections in them
// included, and divided by the runs that printed their start on the daemon's stdout (not by the
// runs planned). The main thread and the spawn helper are printed beside. Roots are interleaved,
// one daemon at a time; medians over --reps daemons per root.
// For comparing two builds' launch CPU in minutes, where `npm run bench -- launch` takes half an
// hour (docs/performance.md "Held pipes and the per-run garbage").
//
//   npm run build && node --import tsx bench/cpu-per-launch.ts [--reps 3] [--instants 6]
//       [--state] [--root OTHER_CHECKOUT ...]
//
// --root adds a built checkout to compare, on its own default spawn path; --state gives the
// daemons a `state:` section (a fresh store in the run dir). Prints one JSON line per daemon on
// stderr and a table on stdout.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { instantsInOneMinute, LAUNCH_BURST_JOBS, writeLaunchConfig } from './lib/config-file.js';
import { collectStartInstants, daemonEnv, helperPidOf, stopChild, waitUntil } from './lib/proc.js';
import { flagValues } from './lib/flags.js';
import { median, round } from './lib/stats.js';

const flags = process.argv.slice(2);
const flag = (name: string): string[] => flagValues(flags, name);
const reps = Number(flag('reps')[0] ?? '3');
const instants = Number(flag('instants')[0] ?? '6');
const withState = flags.includes('--state');
const roots = [
  path.resolve(import.meta.dirname, '..'),
  ...flag('root').map((r) => path.resolve(r)),
];
const JOBS = 1_000;
const SPACING_S = 3;
if (!(instants >= 3 && (instants - 1) * SPACING_S < 60)) {
  throw new Error(`--instants must be 3 to ${Math.floor(59 / SPACING_S) + 1}`);
}

/** CPU time of every thread of `pid` so far, ns (0 once it is gone). */
function cpuNs(pid: number, thread?: number): number {
  let total = 0;
  try {
    const threads = thread === undefined ? readdirSync(`/proc/${pid}/task`) : [String(thread)];
    for (const task of threads) {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
  } catch {
    // The process (or a thread) ended between the listing and the read.
  }
  return total;
}

interface Reading {
  readonly launches: number;
  /** ms of CPU per launch: all the daemon's threads, its main thread, its spawn helper. */
  readonly daemonMs: number;
  readonly mainMs: number;
  readonly helperMs: number;
}

async function measure(root: string, workDir: string): Promise<Reading> {
  const runDir = mkdtempSync(path.join(workDir, 'run-'));
  const instantsS = instantsInOneMinute(Math.ceil(Date.now() / 1000) + 8, instants, SPACING_S);
  const firstS = instantsS[0]!;
  const config = path.join(runDir, 'config.yaml');
  writeLaunchConfig(config, {
    jobs: JOBS,
    instantsS,
    statePath: withState ? path.join(runDir, 'store') : null,
  });
  const daemon = spawn(process.execPath, [path.join(root, 'bin/yacron2.js'), '-c', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: runDir,
    env: daemonEnv('default'),
  });
  daemon.stderr.resume();
  const starts = collectStartInstants(daemon.stdout);
  const exited = once(daemon, 'exit');
  const pid = daemon.pid!;
  try {
    await waitUntil((firstS + SPACING_S) * 1000 - 300);
    const helper = helperPidOf(pid);
    const before = { all: cpuNs(pid), main: cpuNs(pid, pid), helper: helper ? cpuNs(helper) : 0 };
    const startsBefore = starts.length;
    await waitUntil((instantsS.at(-1)! + SPACING_S) * 1000 - 300);
    const launches = starts.length - startsBefore;
    const perLaunch = (ns: number): number => ns / launches / 1e6;
    return {
      launches,
      daemonMs: perLaunch(cpuNs(pid) - before.all),
      mainMs: perLaunch(cpuNs(pid, pid) - before.main),
      helperMs: helper ? perLaunch(cpuNs(helper) - before.helper) : 0,
    };
  } finally {
    await stopChild(daemon, exited);
    rmSync(runDir, { recursive: true, force: true });
  }
}

const workDir = mkdtempSync(path.join(tmpdir(), 'cpu-per-launch-'));
const results = new Map<string, Reading[]>();
const loads: number[] = [];
try {
  for (let rep = 0; rep < reps; rep++) {
    for (const root of roots) {
      const reading = await measure(root, workDir);
      const expected = (instants - 1) * LAUNCH_BURST_JOBS;
      if (reading.launches !== expected) {
        process.stderr.write(`warning: ${reading.launches} runs started, ${expected} planned\n`);
      }
      loads.push(loadavg()[0] ?? Number.NaN);
      results.set(root, [...(results.get(root) ?? []), reading]);
      process.stderr.write(`${JSON.stringify({ root, rep, ...reading, load1m: loads.at(-1) })}\n`);
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
const ms = (values: number[]): string => `${round(median(values), 3)}`.padStart(8);
process.stdout.write(
  `root${' '.repeat(40)}  daemon    main  helper  (median ms per launch of ${reps}${withState ? ', state:' : ''})\n`,
);
for (const [root, readings] of results) {
  process.stdout.write(
    `${root.padEnd(44)} ${ms(readings.map((r) => r.daemonMs))}${ms(readings.map((r) => r.mainMs))}${ms(readings.map((r) => r.helperMs))}\n`,
  );
}
process.stdout.write(
  `load average 1m: min ${round(Math.min(...loads), 2)}, median ${round(median(loads), 2)}, max ${round(Math.max(...loads), 2)}\n`,
);
