// Worker: the CPU of the real daemon (bin/yacron2.js, a child process) holding 100 monitored
// runs at interval 1 s, beside the same daemon with the same 100 runs unmonitored. Each daemon
// starts its 100 `sleep` jobs at @reboot; once every one has spawned (and a settling second has
// passed) its utime + stime are read from /proc/<pid>/stat at both ends of the window. The jobs'
// process groups are killed with the daemon at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { intArg, repoRoot, reportSample, stringArg } from '../lib/worker-io.js';

const runs = intArg(0, 'runs');
const windowMs = intArg(1, 'windowMs');
const workDir = stringArg(2, 'workDir');
const HZ = 100;

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(monitored: boolean): Promise<{ cpuPercent: number; spawned: number }> {
  const jobs = Array.from(
    { length: runs },
    (_, index) => `  - name: j${index}
    command: exec sleep 600
    schedule: "@reboot"
    killTimeout: 1
${monitored ? '    monitorResources:\n      interval: 1\n' : ''}`,
  ).join('');
  const configPath = path.join(workDir, `resources-daemon-${monitored}.yaml`);
  writeFileSync(configPath, `jobs:\n${jobs}`);
  const daemon: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot(), 'bin/yacron2.js'), '-c', configPath, '--shutdown-grace', '0'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const pids: number[] = [];
  let partial = '';
  const allSpawned = new Promise<void>((resolve) => {
    daemon.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (/Job j\d+ spawned/.test(line)) pids.push(0);
      if (pids.length >= runs) resolve();
    });
  });
  await Promise.race([allSpawned, delay(60_000)]);
  await delay(2_000);
  const before = cpuTicks(daemon.pid!);
  const startedAt = performance.now();
  await delay(windowMs);
  const ticks = cpuTicks(daemon.pid!) - before;
  const elapsedMs = performance.now() - startedAt;
  daemon.kill('SIGTERM');
  await once(daemon, 'exit');
  return { cpuPercent: (ticks / HZ / (elapsedMs / 1000)) * 100, spawned: pids.length };
}

const unmonitored = await measure(false);
const monitored = await measure(true);
reportSample({
  runs,
  windowMs,
  cpuPercent: monitored.cpuPercent,
  baselineCpuPercent: unmonitored.cpuPercent,
  spawned: monitored.spawned,
  baselineSpawned: unmonitored.spawned,
});
