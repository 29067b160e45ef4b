// Test support (not a test file): a scheduler on a FakeClock and a FakeRunner, with every event
// and log line recorded so tests can assert on values instead of sleeping.
import { FakeClock } from '../common/index.js';
import { recordingLogger, type LoggedLine } from '../logging/testing.js';
import type { ResolvedJob } from '../config/index.js';
import { FakeRunner } from './fake-runner.js';
import { makeConfig } from '../config/testing.js';
import { createScheduler } from './scheduler.js';
import type {
  ClusterPort,
  DurablePort,
  GateRequest,
  GateResult,
  RunEnvironmentHook,
  RunMonitor,
} from './ports.js';
import type { Scheduler, SchedulerEvents } from './types.js';

export const T0 = Date.UTC(2026, 0, 1); // 2026-01-01T00:00:00Z, a Thursday, on every boundary

export type RecordedEvent = {
  [K in keyof SchedulerEvents]: { readonly name: K; readonly payload: SchedulerEvents[K] };
}[keyof SchedulerEvents];

export interface HarnessOptions {
  readonly startMs?: number;
  readonly gate?: (request: GateRequest) => GateResult;
  readonly launchSliceSize?: number;
  readonly cancelDelayMs?: number;
  /** The runner's pids come this long after start() returned, as through the spawn helper. */
  readonly spawnDelayMs?: number;
  /** Wait between launch slices (default: a zero timer on the fake clock). */
  readonly yieldToLoop?: (clock: FakeClock) => Promise<void>;
  readonly wakeLeadMs?: number;
  /** The durable port the scheduler is built with (default: none, stateless). */
  readonly durable?: DurablePort;
  /** The resource monitor the scheduler is built with (default: none). */
  readonly runMonitor?: RunMonitor;
  /** The run-environment hook the scheduler is built with (default: none). */
  readonly runEnvironment?: RunEnvironmentHook;
  /** The cluster port (default: none). */
  readonly cluster?: ClusterPort;
}

export interface Harness {
  readonly clock: FakeClock;
  readonly runner: FakeRunner;
  readonly scheduler: Scheduler;
  readonly events: RecordedEvent[];
  /** Every log line, in order (the recording logger's lines). */
  readonly logs: readonly LoggedLine[];
  /** Payloads of one event, in order. */
  of<K extends keyof SchedulerEvents>(name: K): SchedulerEvents[K][];
  /** Log messages containing `text`. */
  logged(text: string): string[];
  /** shutdown(graceMs), advancing the FakeClock until it settles (bounded). */
  stop(graceMs?: number): Promise<void>;
}

const EVENT_NAMES: readonly (keyof SchedulerEvents)[] = [
  'run:started',
  'run:output',
  'run:finished',
  'fire:skipped',
  'schedule:late',
  'retry:scheduled',
  'retry:discarded',
  'retry:abandoned',
  'report:failed',
  'report:succeeded',
  'report:permanently-failed',
  'config:applied',
  'clock:jumped',
  'loop:woke',
  'shutdown:started',
  'shutdown:finished',
];

export function createHarness(jobs: readonly ResolvedJob[], options: HarnessOptions = {}): Harness {
  const clock = new FakeClock(options.startMs ?? T0);
  const runner = new FakeRunner({
    clock,
    cancelDelayMs: options.cancelDelayMs ?? 0,
    spawnDelayMs: options.spawnDelayMs ?? 0,
  });
  const logger = recordingLogger();
  const scheduler = createScheduler(
    {
      clock,
      logger,
      runner,
      ...(options.gate ? { gate: options.gate } : {}),
      ...(options.launchSliceSize ? { launchSliceSize: options.launchSliceSize } : {}),
      // Slices end on the fake clock's zero timers, so advance() runs a whole burst.
      yieldToLoop: () => (options.yieldToLoop ? options.yieldToLoop(clock) : clock.sleep(0)),
      ...(options.wakeLeadMs === undefined ? {} : { wakeLeadMs: options.wakeLeadMs }),
      ...(options.durable === undefined ? {} : { durable: options.durable }),
      ...(options.runMonitor === undefined ? {} : { runMonitor: options.runMonitor }),
      ...(options.runEnvironment === undefined
        ? {}
        : { runEnvironment: { current: () => options.runEnvironment ?? null } }),
      ...(options.cluster === undefined ? {} : { cluster: options.cluster }),
    },
    makeConfig(jobs),
  );
  const events: RecordedEvent[] = [];
  for (const name of EVENT_NAMES) {
    scheduler.events.on(name, (payload) => events.push({ name, payload } as RecordedEvent));
  }
  return {
    clock,
    runner,
    scheduler,
    events,
    logs: logger.lines,
    of<K extends keyof SchedulerEvents>(name: K): SchedulerEvents[K][] {
      return events
        .filter((event) => event.name === name)
        .map((event) => event.payload) as SchedulerEvents[K][];
    },
    logged(text: string): string[] {
      return logger.messages().filter((message) => message.includes(text));
    },
    async stop(graceMs = 0): Promise<void> {
      let settled = false;
      const done = scheduler.shutdown(graceMs).then(() => {
        settled = true;
      });
      for (let step = 0; step < 10_000 && !settled; step++) await clock.advance(1000);
      if (!settled) throw new Error('scheduler shutdown did not settle');
      await done;
    },
  };
}
