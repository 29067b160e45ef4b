// Worker: the floor of the 200-job instant on this machine. bench/native/instant-floor.c,
// compiled here with `cc`, posix_spawns the burst jobs' command (`/bin/bash -c 'echo
// "$EPOCHREALTIME"'`, own session, stdout inherited) 200 times at each of a few instants 5 s
// apart, as launch-daemon.ts's daemon does, with nothing else: no scheduler, no messages, no
// bookkeeping. Reported like launch-daemon.ts's instants (the lateness of each run), so the
// group can say how far above the floor the daemon's p99 is. Without a C compiler it reports
// why instead.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { instantsInOneMinute, LAUNCH_BURST_JOBS } from '../lib/config-file.js';
import { collectStartInstants, latenessPerInstant, stopChild } from '../lib/proc.js';
import { intArg, reportSample, stringArg } from '../lib/worker-io.js';

const root = stringArg(0, 'root');
const workDir = stringArg(1, 'workDir');
const instants = intArg(2, 'instants');
const INSTANT_SPACING_S = 5;

const runDir = mkdtempSync(path.join(workDir, 'launch-floor-'));
const program = path.join(runDir, 'instant-floor');
const compiler = process.env['CC'] || 'cc';
try {
  execFileSync(compiler, ['-O2', '-o', program, path.join(root, 'bench/native/instant-floor.c')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
} catch (error) {
  rmSync(runDir, { recursive: true, force: true });
  const reason = `${compiler} could not build the floor: ${String(error)}`;
  process.stderr.write(`launch-floor: ${reason}\n`);
  reportSample({ unavailable: reason, instants: [] });
  process.exit(0);
}

const instantsS = instantsInOneMinute(
  Math.ceil(Date.now() / 1000) + 2,
  instants,
  INSTANT_SPACING_S,
);
const floor = spawn(program, [String(LAUNCH_BURST_JOBS), ...instantsS.map(String)], {
  stdio: ['ignore', 'pipe', 'inherit'],
  cwd: runDir,
});
const starts = collectStartInstants(floor.stdout);
const exited = once(floor, 'exit');
const timeout = setTimeout(
  () => void stopChild(floor, exited),
  (instants * INSTANT_SPACING_S + 120) * 1000,
);
const [code] = (await exited) as [number | null];
clearTimeout(timeout);
rmSync(runDir, { recursive: true, force: true });
if (code !== 0) throw new Error(`instant-floor exited with ${code}`);

reportSample({
  burstJobs: LAUNCH_BURST_JOBS,
  instants: latenessPerInstant(starts, instantsS).map((lateness) => ({
    runs: lateness.length,
    latenessMs: lateness,
  })),
});
