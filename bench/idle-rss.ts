// Quick idle-memory probe (not a bench group, not in CI): real daemons (`node ROOT/bin/yacron2.js
// -c FILE`) on the launch group's configs (lib/config-file.ts writeLaunchConfig, the burst an hour
// ahead so nothing fires), one at a time, each left idle --idle seconds, then VmRSS, RssAnon and
// RssFile read from /proc/<pid>/status. Sizes and roots interleaved (a noisy minute hits every
// build alike); medians over --reps daemons per size and root; the 1-minute load average beside.
// For iterating on memory in minutes, where `npm run bench -- launch` takes a quarter of an hour.
//
//   npm run build && node --import tsx bench/idle-rss.ts [--sizes 1000,10000] [--reps 3]
//       [--idle 20] [--root OTHER_CHECKOUT ...] [--bare]
//
// --root adds a checkout to compare (built); --bare adds `node -e 'setInterval(() => {}, 1e6)'`,
// the floor any node process shows. Prints one JSON line per daemon on stderr and a table on
// stdout.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { writeLaunchConfig } from './lib/config-file.js';
import { delay, stopChild } from './lib/proc.js';
import { flagValues } from './lib/flags.js';
import { median, round } from './lib/stats.js';

const flags = process.argv.slice(2);
const flag = (name: string): string[] => flagValues(flags, name);
const sizes = (flag('sizes')[0] ?? '1000,10000').split(',').map(Number);
const reps = Number(flag('reps')[0] ?? '3');
const idleS = Number(flag('idle')[0] ?? '20');
const roots = [
  path.resolve(import.meta.dirname, '..'),
  ...flag('root').map((r) => path.resolve(r)),
];
const bare = flags.includes('--bare');

interface Reading {
  readonly rssKb: number;
  readonly anonKb: number;
  readonly fileKb: number;
}

function readStatus(pid: number): Reading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssKb: field('VmRSS'), anonKb: field('RssAnon'), fileKb: field('RssFile') };
}

async function measure(argv: readonly string[], cwd: string): Promise<Reading> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'ignore'], cwd });
  const exited = once(child, 'exit');
  await delay(idleS * 1000);
  const reading = readStatus(child.pid!);
  await stopChild(child, exited);
  return reading;
}

const workDir = mkdtempSync(path.join(tmpdir(), 'idle-rss-'));
const configs = new Map<number, string>();
const inAnHour = Math.ceil(Date.now() / 1000 / 60) * 60 + 3600;
for (const jobs of sizes) {
  const file = path.join(workDir, `config-${jobs}.yaml`);
  writeLaunchConfig(file, { jobs, instantsS: [inAnHour], statePath: null });
  configs.set(jobs, file);
}
const results = new Map<string, Reading[]>();
const loads: number[] = [];
try {
  for (let rep = 0; rep < reps; rep++) {
    const cases: [string, string[]][] = [];
    if (bare) cases.push(['bare node', ['-e', 'setInterval(() => {}, 1e6)']]);
    for (const jobs of sizes) {
      for (const root of roots) {
        const name = `${jobs} jobs ${roots.length > 1 ? root : ''}`.trim();
        cases.push([name, [path.join(root, 'bin/yacron2.js'), '-c', configs.get(jobs)!]]);
      }
    }
    for (const [name, argv] of cases) {
      const reading = await measure(argv, workDir);
      loads.push(loadavg()[0] ?? Number.NaN);
      results.set(name, [...(results.get(name) ?? []), reading]);
      process.stderr.write(`${JSON.stringify({ name, rep, ...reading, load1m: loads.at(-1) })}\n`);
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
const mb = (values: number[]): string => `${round(median(values) / 1024, 1)}`.padStart(7);
process.stdout.write(`case${' '.repeat(40)}  VmRSS RssAnon RssFile  (median MB of ${reps})\n`);
for (const [name, readings] of results) {
  process.stdout.write(
    `${name.padEnd(44)} ${mb(readings.map((r) => r.rssKb))} ${mb(readings.map((r) => r.anonKb))} ${mb(readings.map((r) => r.fileKb))}\n`,
  );
}
process.stdout.write(
  `load average 1m: min ${round(Math.min(...loads), 2)}, median ${round(median(loads), 2)}, max ${round(Math.max(...loads), 2)}\n`,
);
