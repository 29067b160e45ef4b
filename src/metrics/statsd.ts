// Per-job statsd datagrams (docs/metrics.md "statsd"), driven by scheduler
// events: a start datagram once a run spawned, one stop datagram when that run ends. A DAG task's
// processes (attempts and sensor pokes) report through started/stopped directly. Sends are
// fire-and-forget background tasks; a failure is logged and never touches the job.
import { TaskSet, describeError, type Clock } from '../common/index.js';
import { type Logger } from '../logging/index.js';
import type { StatsdTarget } from '../config/index.js';
import type { RunResources, SchedulerView } from '../scheduler/index.js';
import { sendUdpDatagram, type DatagramSend } from './udp-send.js';

export function formatStartDatagram(prefix: string): string {
  return `${prefix}.start:1|g\n`;
}

/**
 * The stop datagram. `@0.1` is sent literally, as the reference does, though nothing is sampled.
 * CPU and peak RSS lines follow only when resource monitoring produced usage.
 */
export function formatStopDatagram(
  prefix: string,
  success: boolean,
  durationMs: number,
  resources: RunResources | null,
): string {
  let payload =
    `${prefix}.stop:1|g\n` +
    `${prefix}.success:${success ? 1 : 0}|g\n` +
    `${prefix}.duration:${Math.round(durationMs)}|ms|@0.1\n`;
  if (resources) {
    payload +=
      `${prefix}.cpu:${Math.round(resources.cpuTotalSeconds * 1000)}|ms|@0.1\n` +
      `${prefix}.max_rss:${resources.maxRssBytes}|g\n`;
  }
  return payload;
}

export interface StatsdDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The datagram transport; default: a fresh UDP socket per send. */
  readonly send?: DatagramSend;
}

/** One process's datagrams: the start once it spawned, the stop (at most once) when it ends. */
export interface StatsdProcesses {
  /** `runId` spawned (a launch failure is never reported: neither start nor stop is sent). */
  started(runId: string, jobName: string, target: StatsdTarget): void;
  /** `runId` ended; sent only after its start, and once. */
  stopped(runId: string, success: boolean, resources: RunResources | null): void;
}

export interface StatsdPublisher extends StatsdProcesses {
  /** Follow a scheduler's runs; returns the unsubscribe function. */
  subscribe(scheduler: Pick<SchedulerView, 'events'>): () => void;
  /** Wait for datagrams still being sent. */
  close(): Promise<void>;
}

interface StartedRun {
  readonly jobName: string;
  readonly target: StatsdTarget;
  readonly startedMonotonicMs: number;
}

export function createStatsdPublisher(deps: StatsdDeps): StatsdPublisher {
  const { clock, logger } = deps;
  const send = deps.send ?? sendUdpDatagram;
  const tasks = new TaskSet((error) =>
    logger.error({ logger: 'statsd', err: error }, `statsd: ${describeError(error)}`),
  );
  /**
   * Runs whose start datagram went out, by run id: the stop is sent at most once, and only for
   * these.
   */
  const live = new Map<string, StartedRun>();

  const onSocketError = (error: Error): void =>
    logger.warn({ logger: 'statsd', err: error }, `UDP error received: ${describeError(error)}`);

  const dispatch = (jobName: string, target: StatsdTarget, payload: string, what: string): void =>
    tasks.run(async () => {
      try {
        await send(target, payload, onSocketError);
      } catch (error) {
        logger.warn({ err: error }, `Job ${jobName}: failed to send statsd ${what} metric`);
      }
    });

  const started = (runId: string, jobName: string, target: StatsdTarget): void => {
    live.set(runId, { jobName, target, startedMonotonicMs: clock.monotonic() });
    dispatch(jobName, target, formatStartDatagram(target.prefix), 'job_started');
  };
  const stopped = (runId: string, success: boolean, resources: RunResources | null): void => {
    const run = live.get(runId);
    if (!run) return;
    live.delete(runId);
    const payload = formatStopDatagram(
      run.target.prefix,
      success,
      clock.monotonic() - run.startedMonotonicMs,
      resources,
    );
    dispatch(run.jobName, run.target, payload, 'job_stopped');
  };

  return {
    started,
    stopped,
    subscribe(scheduler) {
      const unsubscribers = [
        scheduler.events.on('run:started', (event) => {
          const target = event.job.statsd;
          // A launch failure has no pid: neither start nor stop is sent.
          if (!target || event.pid === null) return;
          started(event.runId, event.job.name, target);
        }),
        // Deviation (docs/metrics.md): `success` is the run's real verdict, output-based
        // failsWhen rules included; the reference decides it before reading the output.
        scheduler.events.on('run:finished', (event) =>
          stopped(event.runId, event.outcome.failReason === null, event.summary.resources),
        ),
      ];
      return () => {
        for (const unsubscribe of unsubscribers) unsubscribe();
      };
    },
    close: () => tasks.close(),
  };
}
