// Group memory: RSS after GC with 10k and 100k jobs loaded and scheduled, the config load time,
// and the time to build the fire schedule (createScheduler + start). Worker: cases/memory.ts,
// one fresh process per sample so every RSS starts clean.
import * as path from 'node:path';
import { writeMixedConfig } from '../lib/config-file.js';
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, min, round, roundAll } from '../lib/stats.js';
import { MB, numberField, runFresh, type BenchContext, type BenchGroup } from './group.js';

interface Size {
  readonly jobs: number;
  readonly label: string;
  /** Fresh processes; 100k loads take tens of seconds, so fewer of them. */
  readonly repetitions: number;
  readonly rssTarget: Target;
  readonly buildTarget: Target | null;
}

const SIZES: readonly Size[] = [
  {
    jobs: 10_000,
    label: '10k-jobs',
    repetitions: 3,
    rssTarget: { op: '<=', value: 80 },
    buildTarget: null,
  },
  {
    jobs: 100_000,
    label: '100k-jobs',
    repetitions: 2,
    rssTarget: { op: '<=', value: 200 },
    buildTarget: { op: '<=', value: 300 },
  },
];
const WARM_BUILDS = 3;

export const memoryGroup: BenchGroup = {
  id: 'memory',
  summary: 'RSS, config load and fire-schedule build with 10k and 100k jobs',
  metricPrefixes: ['memory', 'config-load', 'schedule-build'],
  async run(context) {
    for (const size of SIZES) await measureSize(context, size);
  },
};

async function measureSize(context: BenchContext, size: Size): Promise<void> {
  const configPath = path.join(context.workDir, `mixed-${size.jobs}.yaml`);
  writeMixedConfig(configPath, size.jobs);
  context.progress(`memory: ${size.jobs} jobs, ${size.repetitions} fresh processes`);
  const { runs, failures } = await runFresh(context, 'cases/memory.js', size.repetitions, {
    args: () => [configPath, String(size.jobs), String(WARM_BUILDS)],
    nodeFlags: ['--expose-gc'],
    timeoutMs: 300_000,
  });
  const samples = runs.flat();
  const names = {
    rss: `memory.rss.${size.label}`,
    load: `config-load.${size.label}`,
    build: `schedule-build.${size.label}`,
  };
  if (samples.length === 0) {
    const reason = failures[0] ?? 'no samples';
    context.emit(unmeasured(names.rss, 'MB', size.rssTarget, reason));
    context.emit(unmeasured(names.load, 'ms', null, reason));
    context.emit(unmeasured(names.build, 'ms', size.buildTarget, reason));
    return;
  }
  const field = (key: string): number[] => samples.map((sample) => numberField(sample, key));
  const rssMb = field('rssBytes').map((bytes) => bytes / MB);
  const common = {
    jobs: size.jobs,
    processes: samples.length,
    ...(failures.length > 0 ? { failedProcesses: failures } : {}),
  };
  context.emit(
    metricLine(names.rss, round(median(rssMb), 1), 'MB', size.rssTarget, {
      ...common,
      statistic:
        'median over fresh processes of settled RSS after GC (config and scheduler alive, idle until RSS stops moving)',
      samples: roundAll(rssMb, 1),
      rssRightAfterStartMB: round(median(field('immediateRssBytes')) / MB, 1),
      heapTotalRightAfterStartMB: round(median(field('immediateHeapTotalBytes')) / MB, 1),
      settleMs: roundAll(field('settleMs'), 0),
      heapUsedMB: round(median(field('heapUsedBytes')) / MB, 1),
      heapTotalMB: round(median(field('heapTotalBytes')) / MB, 1),
      externalMB: round(median(field('externalBytes')) / MB, 1),
      baselineRssMB: round(median(field('baselineRssBytes')) / MB, 1),
      peakRssMB: round(median(field('peakRssBytes')) / MB, 1),
      firesDuringMeasurement: max(field('firesRecorded')),
    }),
  );
  const loadMs = field('loadMs');
  context.emit(
    metricLine(names.load, round(median(loadMs), 0), 'ms', null, {
      ...common,
      statistic: 'median over fresh processes of one loadConfig()',
      min: round(min(loadMs), 0),
      samples: roundAll(loadMs, 0),
      perJobUs: round((median(loadMs) * 1000) / size.jobs, 1),
    }),
  );
  const buildMs = field('buildMs');
  const warmMs = samples.flatMap((sample) => (sample['warmBuildMs'] as number[] | undefined) ?? []);
  context.emit(
    metricLine(names.build, round(median(buildMs), 1), 'ms', size.buildTarget, {
      ...common,
      statistic:
        'median over fresh processes of the first createScheduler() + start() after loadConfig (cold, as at daemon start)',
      samples: roundAll(buildMs, 1),
      warmMedianMs: round(median(warmMs), 1),
      warmSamples: roundAll(warmMs, 1),
      allSeeded: samples.every((sample) => sample['firstJobSeeded'] === true),
    }),
  );
}
