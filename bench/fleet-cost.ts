// Fleet cost probe (not a bench group, not in CI): the fleet group's measurement
// (lib/fleet.ts: N real daemons over mTLS gossip on 127.0.0.1, each with J idle jobs and a
// `Leader` job every second, converged, settled, then measured over a window) by hand, with a
// longer window, several passes, and other implementations or builds interleaved with this one.
//
//   npm run build && node --import tsx bench/fleet-cost.ts [--shapes 1x100,10x1000]
//       [--window 60] [--settle 15] [--passes 2] [--converge 60]
//       [--cmd "COMMAND PREFIX" ...] [--root OTHER_CHECKOUT ...]
//
// Implementations: each --cmd (an argv prefix split on spaces, `-c FILE` appended, the
// environment passed through: `PYTHONPATH=REF ... --cmd "/usr/bin/python3 -m yacron2"` runs the
// Python reference, whose config format is ours), or this checkout's `node bin/yacron2.js` when
// there is no --cmd; then `node bin/yacron2.js` of each --root checkout (built). Every pass runs
// every shape for every implementation, in turn (a noisy minute hits all alike). Prints one JSON
// line per fleet on stderr and, on stdout, a table per shape and implementation over the nodes
// of all passes: median [min–max] per node of VmRSS and CPU s/min, the median RssAnon, the
// leader's CPU, the persistent child's (our spawn helper's) VmRSS and CPU, convergence time and
// the 1-minute load average.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  FLEET_SHAPES,
  measureFleet,
  parseShape,
  spread,
  type FleetResult,
  type Spread,
} from './lib/fleet.js';
import { flagValues } from './lib/flags.js';
import { median, round } from './lib/stats.js';

const flags = process.argv.slice(2);
const flag = (name: string): string[] => flagValues(flags, name);
const shapes = (flag('shapes')[0] ?? FLEET_SHAPES.join(',')).split(',').map(parseShape);
const windowS = Number(flag('window')[0] ?? '60');
const settleS = Number(flag('settle')[0] ?? '15');
const passes = Number(flag('passes')[0] ?? '2');
const convergeS = Number(flag('converge')[0] ?? '60');
const here = path.resolve(import.meta.dirname, '..');
const nodeCommand = (root: string): string[] => [
  process.execPath,
  path.join(root, 'bin/yacron2.js'),
];
const implementations: { readonly name: string; readonly command: readonly string[] }[] = [
  ...(flag('cmd').length === 0
    ? [{ name: here, command: nodeCommand(here) }]
    : flag('cmd').map((cmd) => ({ name: cmd, command: cmd.trim().split(/\s+/) }))),
  ...flag('root').map((root) => ({ name: path.resolve(root), command: nodeCommand(root) })),
];

const workDir = mkdtempSync(path.join(tmpdir(), 'fleet-cost-'));
const results = new Map<string, FleetResult[]>();
const failures = new Map<string, string[]>();
const key = (shape: string, name: string): string => `${shape}\t${name}`;
try {
  for (let pass = 0; pass < passes; pass++) {
    for (const shape of shapes) {
      for (const implementation of implementations) {
        const at = key(shape.label, implementation.name);
        try {
          const result = await measureFleet({
            command: implementation.command,
            shape,
            parentDir: workDir,
            settleMs: settleS * 1000,
            windowMs: windowS * 1000,
            convergeTimeoutMs: convergeS * 1000,
            progress: (message) => process.stderr.write(`fleet-cost: ${message}\n`),
          });
          results.set(at, [...(results.get(at) ?? []), result]);
          process.stderr.write(
            `${JSON.stringify({ implementation: implementation.name, pass, ...result })}\n`,
          );
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          failures.set(at, [...(failures.get(at) ?? []), message]);
          process.stderr.write(
            `${JSON.stringify({ implementation: implementation.name, pass, shape: shape.label, error: message })}\n`,
          );
        }
      }
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}

const cell = (value: Spread, width: number): string =>
  `${String(value.median)} [${String(value.min)}-${String(value.max)}]`.padEnd(width);
const one = (value: number | null, width: number): string => String(value).padStart(width);
process.stdout.write(
  `${'shape'.padEnd(8)} ${'VmRSS MB/node'.padEnd(20)} ${'RssAnon'.padStart(7)} ${'CPU s/min/node'.padEnd(22)} ${'leader'.padStart(6)} ${'helper MB'.padStart(9)} ${'helper s/min'.padStart(12)} ${'conv s'.padStart(6)} ${'load1m'.padStart(6)}  implementation\n`,
);
for (const shape of shapes) {
  for (const implementation of implementations) {
    const at = key(shape.label, implementation.name);
    const runs = results.get(at) ?? [];
    const failed = failures.get(at) ?? [];
    if (runs.length === 0) {
      process.stdout.write(
        `${shape.label.padEnd(8)} failed: ${failed.join(' / ')}  ${implementation.name}\n`,
      );
      continue;
    }
    const nodes = runs.flatMap((run) => run.nodes);
    const helpers = nodes.flatMap((node) => node.persistentChildren);
    const leaders = nodes.filter((node) => node.isLeader).map((node) => node.cpuSPerMin);
    const mb = (kb: number): number => kb / 1024;
    process.stdout.write(
      [
        shape.label.padEnd(8),
        cell(
          spread(
            nodes.map((node) => mb(node.rssKb)),
            1,
          ),
          20,
        ),
        one(round(median(nodes.map((node) => mb(node.rssAnonKb))), 1), 7),
        cell(
          spread(
            nodes.map((node) => node.cpuSPerMin),
            3,
          ),
          22,
        ),
        one(round(median(leaders), 3), 6),
        one(helpers.length === 0 ? null : round(median(helpers.map((h) => mb(h.rssKb))), 2), 9),
        one(helpers.length === 0 ? null : round(median(helpers.map((h) => h.cpuSPerMin)), 3), 12),
        one(round(median(runs.map((run) => run.convergeMs / 1000)), 1), 6),
        one(round(median(runs.map((run) => run.loadAvg1m)), 2), 6),
        ` ${implementation.name}${failed.length > 0 ? ` (${failed.length} failed: ${failed.join(' / ')})` : ''}`,
      ].join(' ') + '\n',
    );
  }
}
process.stdout.write(
  `${passes} pass(es), window ${windowS} s after ${settleS} s settling; per-node values pooled over passes; VmRSS at the window's end\n`,
);
