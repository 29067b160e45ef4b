// Group durable: does the durable collaborator cost plain scheduled fires anything? 200 jobs and
// a lone job fire every second with the real scheduler and systemClock (worker:
// cases/durable-lateness.ts), stateless vs a healthy FsStateStore-backed DurableState vs the same
// store hung on every operation; launched by the real runner, and by a FakeRunner (no forks) to
// isolate the scheduler and the store's background work. Fresh process per case and repetition,
// cases interleaved so a noisy moment hits all of them. Reported against the core daemon's
// targets, never asserted.
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, percentile, round, roundAll } from '../lib/stats.js';
import type { Sample } from '../lib/workers.js';
import { numberField, runFresh, type BenchGroup, type BenchContext } from './group.js';

const JOBS = 200;
const SECONDS = 6;
const REPETITIONS = 3;
const VARIANTS = ['stateless', 'healthy', 'hung'] as const;
type Variant = (typeof VARIANTS)[number];
const RUNNERS = ['real', 'fake'] as const;
type RunnerKind = (typeof RUNNERS)[number];
/** The core daemon's targets (issue 1 / group burst): decision p99 and lone-job lateness. */
const DECISION_TARGET: Target = { op: '<=', value: 5 };
const LONE_TARGET: Target = { op: '<=', value: 20 };

const DESCRIPTIONS: Record<Variant, string> = {
  stateless: 'no state section (no DurableState)',
  healthy: 'DurableState over the daemon-built FsStateStore (metered, unthrottled, local temp dir)',
  hung: 'the same store opened, then every operation hung (FaultyStateStore "hang")',
};

const RUNNER_DESCRIPTIONS: Record<RunnerKind, string> = {
  real: 'the real runner: command "true" forked per run',
  fake: 'a FakeRunner: no fork, each run ends 20 ms after it starts',
};

const numbers = (sample: Sample, key: string): number[] =>
  ((sample[key] as (number | null)[] | undefined) ?? []).filter(
    (value): value is number => typeof value === 'number',
  );

export const durableGroup: BenchGroup = {
  id: 'durable',
  summary: `${JOBS} jobs + a lone job every second: decision and fire lateness stateless vs healthy store vs hung store (real and fake runner)`,
  metricPrefixes: ['durable.'],
  async run(context) {
    const cases = RUNNERS.flatMap((runner) => VARIANTS.map((variant) => ({ runner, variant })));
    const samples = cases.map(() => [] as Sample[]);
    const problems = cases.map(() => [] as string[]);
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      for (const [index, { runner, variant }] of cases.entries()) {
        const { runs, failures } = await runFresh(context, 'cases/durable-lateness.js', 1, {
          args: () => [
            variant,
            runner,
            context.workDir,
            String(JOBS),
            String(SECONDS),
            String(repetition),
          ],
          timeoutMs: 90_000,
        });
        samples[index]!.push(...runs.flat());
        problems[index]!.push(...failures);
      }
    }
    for (const [index, { runner, variant }] of cases.entries()) {
      emitVariant(context, variant, runner, samples[index]!, problems[index]!);
    }
  },
};

function emitVariant(
  context: BenchContext,
  variant: Variant,
  runner: RunnerKind,
  samples: readonly Sample[],
  problems: readonly string[],
): void {
  const suffix = runner === 'real' ? variant : `${variant}.fake-runner`;
  const names = {
    decision: `durable.decision-lateness.${suffix}`,
    lone: `durable.lone-job-lateness.${suffix}`,
    fire: `durable.fire-lateness.${suffix}`,
  };
  if (samples.length === 0) {
    const reason = problems[0] ?? 'no process produced a sample';
    context.emit(unmeasured(names.decision, 'ms', DECISION_TARGET, reason));
    context.emit(unmeasured(names.lone, 'ms', LONE_TARGET, reason));
    context.emit(unmeasured(names.fire, 'ms', null, reason));
    return;
  }
  const common = {
    variant: DESCRIPTIONS[variant],
    runner: RUNNER_DESCRIPTIONS[runner],
    jobs: JOBS + 1,
    measuredSeconds: SECONDS,
    processes: samples.length,
    ...(problems.length > 0 ? { problems } : {}),
  };
  const gate = samples.flatMap((sample) => numbers(sample, 'gateDecisionLatenessMs'));
  const whole = samples.flatMap((sample) => numbers(sample, 'decisionLatenessMs'));
  const store = {
    pendingWritesAtEnd: samples.map((sample) => numberField(sample, 'pendingWrites')),
    heldStoreCallsAtEnd: samples.map((sample) => numberField(sample, 'heldCalls')),
    droppedWrites: samples.map((sample) => numberField(sample, 'droppedWrites')),
    durableCloseMs: roundAll(
      samples.map((sample) => numberField(sample, 'durableCloseMs')),
      0,
    ),
    rssMB: samples.map((sample) => numberField(sample, 'rssMB')),
  };
  context.emit(
    metricLine(names.decision, round(percentile(gate, 99), 2), 'ms', DECISION_TARGET, {
      ...common,
      statistic: `p99 over ${gate.length} scheduled decisions, each timestamped (sub-ms) by a pass-through cluster gate, minus its slot`,
      p50: round(percentile(gate, 50), 2),
      max: round(max(gate), 2),
      perProcessP99: samples.map((sample) =>
        round(percentile(numbers(sample, 'gateDecisionLatenessMs'), 99), 2),
      ),
      wholeMs: {
        note: 'run:started decisionLatenessMs (Date.now, whole ms)',
        p50: percentile(whole, 50),
        p99: percentile(whole, 99),
        max: max(whole),
      },
      ...store,
    }),
  );
  const lone = samples.flatMap((sample) => numbers(sample, 'loneStartLatenessMs'));
  context.emit(
    metricLine(names.lone, max(lone), 'ms', LONE_TARGET, {
      ...common,
      statistic: `max over ${lone.length} fires of the lone job (first in config order) of run:started startedAtMs - scheduledAtMs`,
      p50: percentile(lone, 50),
      p99: percentile(lone, 99),
    }),
  );
  const fire = samples.flatMap((sample) => numbers(sample, 'startLatenessMs'));
  context.emit(
    metricLine(names.fire, percentile(fire, 99), 'ms', null, {
      ...common,
      statistic: `p99 over ${fire.length} scheduled runs of startedAtMs - scheduledAtMs (slot to spawn, queued behind the second's other ${JOBS} spawns)`,
      p50: percentile(fire, 50),
      max: max(fire),
      medianPerProcessP99: median(
        samples.map((sample) => percentile(numbers(sample, 'startLatenessMs'), 99)),
      ),
      outcomes: samples.map((sample) => sample['outcomes']),
    }),
  );
}
