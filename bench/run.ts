// `npm run bench [-- GROUP|METRIC-PREFIX ...]`: runs the benchmark groups, each case in fresh
// `node` worker processes on the built dist/, and prints one JSON line per metric on stdout
// (progress goes to stderr). bench/README.md explains every metric.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { burstGroup } from './groups/burst.js';
import { clusterGroup } from './groups/cluster.js';
import { dashboardGroup } from './groups/dashboard.js';
import { durableGroup } from './groups/durable.js';
import { fleetGroup } from './groups/fleet.js';
import { memoryGroup } from './groups/memory.js';
import { nextFireGroup } from './groups/next-fire.js';
import { resourcesGroup } from './groups/resources.js';
import { stateGroup } from './groups/state.js';
import type { BenchContext, BenchGroup } from './groups/group.js';
import { httpGroup } from './groups/http.js';
import { jobapiGroup } from './groups/jobapi.js';
import { jobCliGroup } from './groups/job-cli.js';
import { launchGroup } from './groups/launch.js';
import { validateCliGroup } from './groups/validate-cli.js';
import { transpileWorkers } from './lib/workers.js';

const GROUPS: readonly BenchGroup[] = [
  nextFireGroup,
  validateCliGroup,
  memoryGroup,
  burstGroup,
  httpGroup,
  stateGroup,
  jobCliGroup,
  jobapiGroup,
  durableGroup,
  dashboardGroup,
  clusterGroup,
  resourcesGroup,
  launchGroup,
  fleetGroup,
];

function usage(): string {
  const lines = GROUPS.map(
    (group) =>
      `  ${group.id.padEnd(14)} ${group.summary} (metrics: ${group.metricPrefixes.join(', ')})`,
  );
  return [
    'usage: npm run bench [-- SELECTOR ...]',
    'Runs every group, or those whose id or metric prefix matches a SELECTOR.',
    ...lines,
  ].join('\n');
}

function selectGroups(selectors: readonly string[]): BenchGroup[] {
  if (selectors.length === 0) return [...GROUPS];
  const unknown = selectors.filter((selector) => !GROUPS.some((group) => matches(group, selector)));
  if (unknown.length > 0) throw new Error(`unknown bench selector(s): ${unknown.join(', ')}`);
  // A selector naming a group is that group only (`launch` is not burst's `launch-throughput`).
  const exact = (selector: string): boolean => GROUPS.some((group) => group.id === selector);
  return GROUPS.filter((group) =>
    selectors.some((selector) =>
      exact(selector) ? group.id === selector : matches(group, selector),
    ),
  );
}

function matches(group: BenchGroup, selector: string): boolean {
  return (
    group.id === selector ||
    group.metricPrefixes.some(
      (prefix) => prefix.startsWith(selector) || selector.startsWith(prefix),
    )
  );
}

async function main(): Promise<number> {
  const selectors = process.argv.slice(2);
  if (selectors.includes('--help') || selectors.includes('-h')) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  let groups: BenchGroup[];
  try {
    groups = selectGroups(selectors);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage()}\n`);
    return 2;
  }

  const benchDir = import.meta.dirname;
  const workDir = mkdtempSync(path.join(tmpdir(), 'yacron2-bench-'));
  const context: BenchContext = {
    repoRoot: path.resolve(benchDir, '..'),
    workDir,
    outDir: path.join(workDir, 'workers'),
    emit: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
    progress: (message) => process.stderr.write(`bench: ${message}\n`),
  };
  const started = performance.now();
  try {
    transpileWorkers(benchDir, context.outDir);
    for (const group of groups) {
      const groupStarted = performance.now();
      context.progress(`${group.id}: ${group.summary}...`);
      await group.run(context);
      context.progress(
        `${group.id}: done in ${((performance.now() - groupStarted) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  context.progress(`all done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

process.exitCode = await main();
