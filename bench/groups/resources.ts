// Group resources: the cost of monitorResources sampling (worker: cases/resources.ts, one fresh
// process). 100 monitored job trees at interval 1 s; the CPU that costs (issue goal: under 1% of
// a core), and a pass's duration as the number of unmonitored processes on the host grows.
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, round, roundAll } from '../lib/stats.js';
import { runFresh, type BenchContext, type BenchGroup } from './group.js';

const RUNS = 100;
const INTERVAL_MS = 1000;
const WINDOW_MS = 20_000;
const EXTRAS = [0, 1000];
const CPU_TARGET: Target = { op: '<=', value: 1 };

export const resourcesGroup: BenchGroup = {
  id: 'resources',
  summary: `monitorResources sampling: CPU with ${RUNS} monitored runs at 1 s, pass cost vs host processes`,
  metricPrefixes: ['resources'],
  async run(context) {
    const { runs, failures } = await runFresh(context, 'cases/resources.js', 1, {
      args: () => [String(RUNS), String(INTERVAL_MS), String(WINDOW_MS), EXTRAS.join(',')],
      timeoutMs: 300_000,
    });
    await runDaemonCase(context);
    const samples = runs[0] ?? [];
    if (samples.length === 0) {
      context.emit(
        unmeasured(
          `resources.sampling-cpu.${RUNS}-runs`,
          '% of a core',
          CPU_TARGET,
          failures[0] ?? 'no samples',
        ),
      );
      return;
    }
    for (const sample of samples) {
      const extra = Number(sample['extraProcesses']);
      const steady = (sample['steadyPassMs'] as number[] | undefined) ?? [];
      const steadyCpu = (sample['steadyPassCpuMs'] as number[] | undefined) ?? [];
      const common = {
        hostProcesses: sample['hostProcesses'],
        extraUnmonitoredProcesses: extra,
        intervalMs: INTERVAL_MS,
      };
      context.emit(
        metricLine(
          `resources.sampling-cpu.${RUNS}-runs.host+${extra}`,
          round(Number(sample['cpuPercent']), 3),
          '% of a core',
          extra === 0 ? CPU_TARGET : null,
          {
            ...common,
            statistic: `CPU of the sampling worker over a ${WINDOW_MS / 1000} s window (process.cpuUsage / wall), idle baseline included`,
            idleBaselinePercent: round(Number(sample['idleCpuPercent']), 3),
            passes: sample['passes'],
          },
        ),
      );
      context.emit(
        metricLine(
          `resources.pass-ms.${RUNS}-runs.host+${extra}`,
          round(median(steady), 3),
          'ms',
          null,
          {
            ...common,
            statistic:
              'median duration of a steady pass (listing /proc, reading the monitored trees)',
            max: round(max(steady), 3),
            samples: roundAll(steady, 3),
            statReadsPerPass: round(Number(sample['statReadsPerSteadyPass']), 1),
          },
        ),
      );
      context.emit(
        metricLine(
          `resources.pass-cpu-ms.${RUNS}-runs.host+${extra}`,
          round(median(steadyCpu), 3),
          'ms',
          null,
          {
            ...common,
            statistic: 'median CPU time (user + system) of a steady pass',
            max: round(max(steadyCpu), 3),
            samples: roundAll(steadyCpu, 3),
          },
        ),
      );
      context.emit(
        metricLine(
          `resources.full-pass-ms.${RUNS}-runs.host+${extra}`,
          round(Number(sample['firstPassMs']), 3),
          'ms',
          null,
          {
            ...common,
            statistic:
              'the first pass after the runs were added: every process on the host read once',
            cpuMs: round(Number(sample['firstPassCpuMs']), 3),
            statReads: sample['statReadsFirstPass'],
          },
        ),
      );
    }
  },
};

/** The real daemon (a child of the worker) with RUNS monitored runs vs the same unmonitored. */
async function runDaemonCase(context: BenchContext): Promise<void> {
  const name = `resources.daemon-cpu.${RUNS}-runs`;
  const { runs, failures } = await runFresh(context, 'cases/resources-daemon.js', 1, {
    args: () => [String(RUNS), String(WINDOW_MS), context.workDir],
    timeoutMs: 300_000,
  });
  const sample = runs[0]?.[0];
  if (sample === undefined) {
    context.emit(unmeasured(name, '% of a core', CPU_TARGET, failures[0] ?? 'no samples'));
    return;
  }
  context.emit(
    metricLine(name, round(Number(sample['cpuPercent']), 3), '% of a core', CPU_TARGET, {
      statistic: `CPU of the daemon process (utime + stime from /proc) over a ${WINDOW_MS / 1000} s window, ${RUNS} @reboot sleep runs monitored at 1 s`,
      baselineUnmonitoredPercent: round(Number(sample['baselineCpuPercent']), 3),
      spawned: sample['spawned'],
      baselineSpawned: sample['baselineSpawned'],
    }),
  );
}
