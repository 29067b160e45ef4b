// Group burst: 1,000 jobs due in the same second with the real scheduler, systemClock and the
// real runner (worker: cases/burst.ts, one fresh process per repetition). Metrics: decision
// lateness, launch throughput against Node's raw spawn ceiling, and the fire lateness of a lone
// job while the burst is launching.
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, percentile, round, roundAll } from '../lib/stats.js';
import type { Sample } from '../lib/workers.js';
import { runFresh, type BenchContext, type BenchGroup } from './group.js';

const COUNT = 1000;
const REPETITIONS = 3;
const DECISION_TARGET: Target = { op: '<=', value: 5 };
const THROUGHPUT_RATIO = 0.85;
const LONE_TARGET: Target = { op: '<=', value: 20 };

const NAMES = {
  decision: `decision-lateness.${COUNT}-job-burst`,
  perDecision: `decision-lateness.${COUNT}-job-burst.per-decision`,
  throughput: `launch-throughput.${COUNT}-job-burst`,
  ceiling: `spawn-ceiling.${COUNT}`,
  lone: 'lone-job-fire-lateness.during-burst',
  loneDecision: 'lone-job-decision-lateness.during-burst',
} as const;

interface BurstStart {
  readonly decisionLatenessMs: number | null;
  readonly launchDelayMs: number;
  readonly startedAtMs: number;
  readonly observedAtMs: number;
  readonly pid: number | null;
}

interface LoneStart {
  readonly scheduledAtMs: number | null;
  readonly decisionLatenessMs: number | null;
  readonly launchDelayMs: number;
  readonly startedAtMs: number;
}

interface RawResult {
  readonly spawnMs: number;
  readonly failures: number;
}

/** What one repetition measured, derived from its sample. */
interface Repetition {
  readonly decisionLatenessMs: number[];
  /** Per-decision instants seen by a pass-through gate, minus the slot (sub-ms). */
  readonly gateDecisionLatenessMs: number[];
  readonly launchDelayMs: number[];
  /** Decision pass: from the wake's clock read to the loop:woke event (all decisions made). */
  readonly decisionPassMs: number | null;
  readonly launchesPerSec: number;
  /** Mean of the one-loop raw ceilings measured just before and just after the burst. */
  readonly ceilingPerSec: number;
  readonly ceilingBeforePerSec: number;
  readonly ceilingAfterPerSec: number;
  readonly rssMB: Record<string, number>;
  readonly slicedCeilingPerSec: number;
  readonly burstSpanMs: number;
  /** Lone-job fires scheduled after the burst second and before its last launch. */
  readonly loneDuring: LoneStart[];
  /** Lone-job fires before the burst second (no burst running). */
  readonly loneIdle: LoneStart[];
  readonly failedLaunches: number;
  readonly outcomes: Record<string, number>;
}

export const burstGroup: BenchGroup = {
  id: 'burst',
  summary: `${COUNT} jobs due in one second: decision lateness, launch throughput, lone-job lateness`,
  metricPrefixes: ['decision-lateness', 'launch-throughput', 'spawn-ceiling', 'lone-job'],
  async run(context) {
    const { runs, failures } = await runFresh(context, 'cases/burst.js', REPETITIONS, {
      args: (repetition) => [String(COUNT), context.workDir, String(repetition)],
      timeoutMs: 180_000,
    });
    const repetitions: Repetition[] = [];
    const problems = [...failures];
    for (const sample of runs.flat()) {
      const derived = derive(sample);
      if (typeof derived === 'string') problems.push(derived);
      else repetitions.push(derived);
    }
    emitMetrics(context, repetitions, problems);
  },
};

function derive(sample: Sample): Repetition | string {
  if (sample['ended'] !== 'finished') {
    return `the burst did not finish within 60 s of its second (${String(sample['ended'])})`;
  }
  const burstAtMs = sample['burstAtMs'] as number;
  const starts = (sample['burstStarts'] as BurstStart[] | undefined) ?? [];
  const lone = (sample['loneStarts'] as LoneStart[] | undefined) ?? [];
  const raw = sample['raw'] as { oneLoop: RawResult; sliced: RawResult; after: RawResult };
  const wake = sample['burstWake'] as { nowMs: number; observedAtMs: number } | null;
  if (starts.length !== COUNT) return `only ${starts.length} of ${COUNT} burst runs started`;
  const decisionLatenessMs = starts.map((start) => start.decisionLatenessMs ?? Number.NaN);
  const decidedAtMs = burstAtMs + median(decisionLatenessMs);
  const lastObservedAtMs = max(starts.map((start) => start.observedAtMs));
  const lastStartedAtMs = max(starts.map((start) => start.startedAtMs));
  // Runs launched by the burst wake: the burst jobs plus the lone job's fire of the same second.
  const launches = COUNT + lone.filter((start) => start.scheduledAtMs === burstAtMs).length;
  const burstSpanMs = lastObservedAtMs - decidedAtMs;
  return {
    decisionLatenessMs,
    gateDecisionLatenessMs: (sample['gateDecisionLatenessMs'] as number[] | undefined) ?? [],
    launchDelayMs: starts.map((start) => start.launchDelayMs),
    decisionPassMs: wake === null ? null : wake.observedAtMs - wake.nowMs,
    launchesPerSec: (launches / burstSpanMs) * 1000,
    // Bracketing the burst with the reference cancels slow drifts in machine load and the
    // process growing (fork() time grows with the parent's memory).
    ceilingPerSec: ((COUNT / raw.oneLoop.spawnMs + COUNT / raw.after.spawnMs) / 2) * 1000,
    ceilingBeforePerSec: (COUNT / raw.oneLoop.spawnMs) * 1000,
    ceilingAfterPerSec: (COUNT / raw.after.spawnMs) * 1000,
    rssMB: (sample['rssMB'] as Record<string, number> | undefined) ?? {},
    slicedCeilingPerSec: (COUNT / raw.sliced.spawnMs) * 1000,
    burstSpanMs,
    loneDuring: lone.filter(
      (start) =>
        start.scheduledAtMs !== null &&
        start.scheduledAtMs > burstAtMs &&
        start.scheduledAtMs <= lastStartedAtMs,
    ),
    loneIdle: lone.filter(
      (start) => start.scheduledAtMs !== null && start.scheduledAtMs < burstAtMs,
    ),
    failedLaunches:
      starts.filter((start) => start.pid === null).length +
      raw.oneLoop.failures +
      raw.sliced.failures +
      raw.after.failures,
    outcomes: (sample['outcomes'] as Record<string, number> | undefined) ?? {},
  };
}

function startLateness(start: LoneStart): number {
  return start.startedAtMs - (start.scheduledAtMs ?? Number.NaN);
}

function emitMetrics(context: BenchContext, reps: Repetition[], problems: string[]): void {
  const common = {
    jobs: COUNT,
    processes: reps.length,
    ...(problems.length > 0 ? { problems } : {}),
  };
  if (reps.length === 0) {
    const reason = problems[0] ?? 'no repetition produced a sample';
    context.emit(unmeasured(NAMES.decision, 'ms', DECISION_TARGET, reason));
    context.emit(unmeasured(NAMES.perDecision, 'ms', DECISION_TARGET, reason));
    context.emit(unmeasured(NAMES.throughput, 'runs/s', null, reason));
    context.emit(unmeasured(NAMES.ceiling, 'spawns/s', null, reason));
    context.emit(unmeasured(NAMES.lone, 'ms', LONE_TARGET, reason));
    context.emit(unmeasured(NAMES.loneDecision, 'ms', LONE_TARGET, reason));
    return;
  }

  const decisions = reps.flatMap((rep) => rep.decisionLatenessMs);
  const launchDelays = reps.flatMap((rep) => rep.launchDelayMs);
  const passes = reps.map((rep) => rep.decisionPassMs ?? Number.NaN);
  const gateDecisions = reps.flatMap((rep) => rep.gateDecisionLatenessMs);
  context.emit(
    metricLine(NAMES.decision, percentile(decisions, 99), 'ms', DECISION_TARGET, {
      ...common,
      statistic: `p99 over ${decisions.length} burst runs (run:started decisionLatenessMs, whole ms)`,
      p50: percentile(decisions, 50),
      max: max(decisions),
      perProcessP99: reps.map((rep) => percentile(rep.decisionLatenessMs, 99)),
      note: 'each decision carries its own clock read (whole ms); .per-decision has sub-ms instants',
      launchDelayMs: {
        p50: percentile(launchDelays, 50),
        p99: percentile(launchDelays, 99),
        max: max(launchDelays),
      },
    }),
  );
  context.emit(
    metricLine(NAMES.perDecision, round(percentile(gateDecisions, 99), 2), 'ms', DECISION_TARGET, {
      ...common,
      statistic: `p99 over ${gateDecisions.length} decisions timestamped one by one (sub-ms) by a pass-through cluster gate, minus the slot`,
      p50: round(percentile(gateDecisions, 50), 2),
      max: round(max(gateDecisions), 2),
      decisionPassMs: roundAll(passes, 1),
    }),
  );

  const ceilings = reps.map((rep) => rep.ceilingPerSec);
  const ceiling = median(ceilings);
  const rates = reps.map((rep) => rep.launchesPerSec);
  const ratios = reps.map((rep) => rep.launchesPerSec / rep.ceilingPerSec);
  context.emit(
    metricLine(
      NAMES.throughput,
      round(median(rates), 0),
      'runs/s',
      { op: '>=', value: round(THROUGHPUT_RATIO * ceiling, 0) ?? Number.NaN },
      {
        ...common,
        statistic: `median over processes of launches / (last run:started - decision)`,
        targetRule: `>= ${THROUGHPUT_RATIO * 100}% of ${NAMES.ceiling} measured in the same processes`,
        ratioToCeiling: round(median(ratios), 3),
        ratioToSlicedCeiling: round(
          median(reps.map((rep) => rep.launchesPerSec / rep.slicedCeilingPerSec)),
          3,
        ),
        ratioSamples: roundAll(ratios, 3),
        samples: roundAll(rates, 0),
        burstSpanMs: roundAll(
          reps.map((rep) => rep.burstSpanMs),
          0,
        ),
        failedLaunches: reps.reduce((sum, rep) => sum + rep.failedLaunches, 0),
        outcomes: reps.map((rep) => rep.outcomes),
      },
    ),
  );
  context.emit(
    metricLine(NAMES.ceiling, round(ceiling, 0), 'spawns/s', null, {
      processes: reps.length,
      statistic: `median over processes of ${COUNT} / time of one synchronous loop of child_process.spawn (same argv, env, stdio, detached as the runner); per process the mean of one loop just before and one just after the burst`,
      samples: roundAll(ceilings, 0),
      beforeBurstSamples: roundAll(
        reps.map((rep) => rep.ceilingBeforePerSec),
        0,
      ),
      afterBurstSamples: roundAll(
        reps.map((rep) => rep.ceilingAfterPerSec),
        0,
      ),
      rssMB: reps.map((rep) => rep.rssMB),
      slicedPerSec: round(median(reps.map((rep) => rep.slicedCeilingPerSec)), 0),
      slicedSamples: roundAll(
        reps.map((rep) => rep.slicedCeilingPerSec),
        0,
      ),
      slicedRule:
        'before the burst, the same spawns in ~8 ms slices with a setImmediate yield between slices',
    }),
  );

  const during = reps.flatMap((rep) => rep.loneDuring);
  const idle = reps.flatMap((rep) => rep.loneIdle);
  const loneDetails = {
    ...common,
    fires: during.length,
    idleFires: idle.length,
    idleStartLatenessMs: idle.map(startLateness),
  };
  if (during.length === 0) {
    const reason = 'no lone-job fire fell inside a burst (every burst finished within a second)';
    context.emit(unmeasured(NAMES.lone, 'ms', LONE_TARGET, reason));
    context.emit(unmeasured(NAMES.loneDecision, 'ms', LONE_TARGET, reason));
    return;
  }
  const startLatenesses = during.map(startLateness);
  const decisionLatenesses = during.map((start) => start.decisionLatenessMs ?? Number.NaN);
  context.emit(
    metricLine(NAMES.lone, max(startLatenesses), 'ms', LONE_TARGET, {
      ...loneDetails,
      statistic:
        'max over lone-job fires scheduled while the burst was launching of run:started startedAtMs - scheduledAtMs',
      median: median(startLatenesses),
      samples: startLatenesses,
      decisionLatenessMs: decisionLatenesses,
    }),
  );
  context.emit(
    metricLine(NAMES.loneDecision, max(decisionLatenesses), 'ms', LONE_TARGET, {
      ...loneDetails,
      statistic:
        'max over the same fires of decisionLatenessMs (timer wake to decision; launch queued behind the burst)',
      median: median(decisionLatenesses),
      samples: decisionLatenesses,
    }),
  );
}
