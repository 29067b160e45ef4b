// Per-job statsd datagrams (docs/metrics.md "statsd"), driven by scheduler
// events: a start datagram once a run spawned, one stop datagram when that run ends. Sends are
// fire-and-forget background tasks; a failure is logged and never touches the job.
import { TaskSet, describeError, type Clock, type Logger } from '../common/index.js';
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

export interface StatsdPublisher {
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
  const started = new Map<string, StartedRun>();

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

  return {
    subscribe(scheduler) {
      const unsubscribers = [
        scheduler.events.on('run:started', (event) => {
          const target = event.job.statsd;
          // A launch failure has no pid: neither start nor stop is sent.
          if (!target || event.pid === null) return;
          started.set(event.runId, {
            jobName: event.job.name,
            target,
            startedMonotonicMs: clock.monotonic(),
          });
          dispatch(event.job.name, target, formatStartDatagram(target.prefix), 'job_started');
        }),
        scheduler.events.on('run:finished', (event) => {
          const run = started.get(event.runId);
          if (!run) return;
          started.delete(event.runId);
          // Deviation (docs/metrics.md): `success` is the run's real verdict, output-based
          // failsWhen rules included; the reference decides it before reading the output.
          const payload = formatStopDatagram(
            run.target.prefix,
            event.outcome.failReason === null,
            clock.monotonic() - run.startedMonotonicMs,
            event.summary.resources,
          );
          dispatch(run.jobName, run.target, payload, 'job_stopped');
        }),
      ];
      return () => {
        for (const unsubscribe of unsubscribers) unsubscribe();
      };
    },
    close: () => tasks.close(),
  };
}
