// `monitorResources` wired into the daemon (docs/configuration.md "monitorResources"): one
// RunSampler for every monitored run behind the scheduler's RunMonitor port, and the
// ResourcesView the control API reads — running instances from the sampler, finished ones from
// the jobs' history, whose summaries carry their usage and series. The sampler's timer runs only
// while a monitored run is alive.
// Must not: sample a run whose job is not monitored; keep a finished run's usage anywhere but in
// its summary (one source of truth: what the history keeps is what /resources serves).
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type { MonitoredRun, ResourcesView } from '../http/index.js';
import { RunSampler } from '../resources/index.js';
import type { RunMonitor, RunResources, SchedulerView } from '../scheduler/index.js';

export interface RunResourcesHandle {
  readonly monitor: RunMonitor;
  /** The control API's view, over the scheduler's history. */
  view(scheduler: Pick<SchedulerView, 'getRuns'>): ResourcesView;
  close(): void;
}

export function createRunResources(deps: { clock: Clock; logger: Logger }): RunResourcesHandle {
  // Built on the first monitored run: a daemon without one never reads /proc.
  let sampler: RunSampler | undefined;
  const monitor: RunMonitor = {
    started({ job, runId, pid, startedAtMs }) {
      const { enabled, intervalMs, history } = job.monitorResources;
      if (!enabled) return;
      sampler ??= new RunSampler(deps);
      sampler.start({ runId, jobName: job.name, pid, startedAtMs, intervalMs, history });
    },
    finished(runId): RunResources | null {
      const usage = sampler?.stop(runId);
      if (usage === undefined) return null;
      const { cpuUserSeconds, cpuSystemSeconds, cpuTotalSeconds, maxRssBytes, samples } = usage;
      return {
        cpuUserSeconds,
        cpuSystemSeconds,
        cpuTotalSeconds,
        maxRssBytes,
        samples,
        series: usage.series,
      };
    },
  };
  return {
    monitor,
    view: (scheduler) => ({
      liveRuns: (jobName) => sampler?.liveOfJob(jobName) ?? [],
      monitoredRuns: (jobName) => {
        const out: MonitoredRun[] = [];
        for (const run of scheduler.getRuns(jobName)) {
          const { resources } = run;
          if (resources === null) continue;
          out.push({ run, usage: { ...resources, series: resources.series ?? [] } });
        }
        return out;
      },
    }),
    close: () => sampler?.close(),
  };
}
