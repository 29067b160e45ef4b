// Worker: launch throughput. 50 jobs every second for a few seconds, each printing the instant
// its command began (`echo "$EPOCHREALTIME"` under bash, stdout inherited); start lateness =
// that instant − the second it was due. Mode `daemon` runs the real daemon (ROOT/bin/yacron2.js)
// on such a config; mode `loop` is the floor: a bare `node` that, at every second, spawns the
// same 50 commands as the runner does (bash -c, stdout inherited, stderr piped, own session) in
// one synchronous loop. The first seconds are warm-up; the daemon's CPU over the measured
// seconds is read from /proc.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { writeEverySecondConfig } from '../lib/config-file.js';
import {
  collectStartInstants,
  cpuTicks,
  daemonEnv,
  delay,
  helperPidOf,
  stopChild,
  waitUntil,
} from '../lib/proc.js';
import { intArg, reportSample, stringArg } from '../lib/worker-io.js';

const root = stringArg(0, 'root');
const mode = stringArg(1, 'mode'); // 'daemon' | 'loop'
const count = intArg(2, 'count');
const seconds = intArg(3, 'seconds');
const workDir = stringArg(4, 'workDir');
const spawnPath = stringArg(5, 'spawnPath'); // 'default' | 'in-process' | 'node-helper'
const WARM_UP_S = 3;

const LOOP_PROGRAM = `
const { spawn } = require('node:child_process');
const count = Number(process.argv[1]);
const tick = () => {
  for (let i = 0; i < count; i++) {
    const child = spawn('/bin/bash', ['-c', 'echo "$EPOCHREALTIME"'], {
      stdio: ['inherit', 'inherit', 'pipe'],
      detached: true,
    });
    child.stderr.resume();
  }
  setTimeout(tick, 1000 - (Date.now() % 1000));
};
setTimeout(tick, 1000 - (Date.now() % 1000));
`;

const runDir = mkdtempSync(path.join(workDir, `throughput-${mode}-`));
let argv: string[];
if (mode === 'daemon') {
  const configPath = path.join(runDir, 'config.yaml');
  writeEverySecondConfig(configPath, count);
  argv = [path.join(root, 'bin/yacron2.js'), '-c', configPath];
} else {
  argv = ['-e', LOOP_PROGRAM, String(count)];
}
const child = spawn(process.execPath, argv, {
  stdio: ['ignore', 'pipe', 'pipe'],
  cwd: runDir,
  env: daemonEnv(spawnPath),
});
child.stderr.resume();
const starts = collectStartInstants(child.stdout);
const exited = once(child, 'exit');
const pid = child.pid!;

const startedAtS = Math.ceil(Date.now() / 1000);
const fromS = startedAtS + WARM_UP_S;
const toS = fromS + seconds;
await waitUntil(fromS * 1000 - 200);
const helperPid = helperPidOf(pid);
const before = cpuTicks(pid);
const helperBefore = helperPid === null ? 0 : cpuTicks(helperPid);
await waitUntil(toS * 1000 - 200);
const ticks = cpuTicks(pid) - before;
const helperTicks = helperPid === null ? 0 : cpuTicks(helperPid) - helperBefore;
await delay(1_500);
await stopChild(child, exited);
rmSync(runDir, { recursive: true, force: true });

const measured = starts.filter((ms) => ms >= fromS * 1000 && ms < toS * 1000);
reportSample({
  mode,
  spawnPath,
  helperPid,
  count,
  seconds,
  launches: measured.length,
  latenessMs: measured.map((ms) => ms % 1000).sort((a, b) => a - b),
  cpuTicks: ticks,
  helperCpuTicks: helperTicks,
});
