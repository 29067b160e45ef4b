// Group launch: what starting processes costs a real daemon (bin/yacron2.js from the built
// checkout) as its config grows: settled idle RSS at 1k/10k/100k jobs, the start lateness of a
// 200-job instant (first instant and later ones apart; stateless, and with a `state:` section
// at 1k) beside the same 200 commands from a bare C loop (the floor), the daemon's CPU per launch at each size (the per-spawn cost on its main thread, the
// spawn helper's CPU beside it), and 50 jobs every second next to a bare spawn loop. Each value
// is this checkout's default spawn path; the in-process path (YACRON2_SPAWN_HELPER=0) runs
// interleaved and is reported beside it.
// With YACRON2_BENCH_PREVIOUS_ROOT (set by compare.sh) the same daemons of that checkout run
// interleaved with this one's, and each line carries the previous value and the ratio.
import { metricLine, type Target } from '../lib/metric.js';
import { median, percentile, round, roundAll } from '../lib/stats.js';
import type { Sample } from '../lib/workers.js';
import { numberField, runFresh, type BenchContext, type BenchGroup } from './group.js';

const SIZES = [1_000, 10_000, 100_000] as const;
const INSTANTS = 4;
const BURST = 200;
/** Cases that measure the machine, not a build: run once per repetition. */
const FLOORS = new Set(['instant.floor', 'throughput.loop']);
const TICK_MS = 10; // /proc utime/stime tick (USER_HZ 100)

const label = (jobs: number): string => `${jobs / 1000}k`;

/** The goals (the Python reference measured on this machine class, see bench/README). */
const TARGETS = {
  rss: new Map<number, Target>([
    [1_000, { op: '<=', value: 56 }],
    [10_000, { op: '<=', value: 70 }],
  ]),
  instantP99: { op: '<=', value: 200 } as Target,
  cpuPerLaunchMs: { op: '<=', value: 0.45 } as Target,
};

/** What a daemon is started with: the checkout's own default, or the in-process path forced. */
type SpawnPath = 'default' | 'in-process';

interface Revision {
  /**
   * `current`: this checkout on its default spawn path (the spawn helper); `in-process`: the
   * same with `YACRON2_SPAWN_HELPER=0`; `previous`: the compared checkout on its own default.
   */
  readonly name: 'current' | 'in-process' | 'previous';
  readonly root: string;
  readonly spawnPath: SpawnPath;
}

type Results = Map<string, Sample[]>;

export const launchGroup: BenchGroup = {
  id: 'launch',
  summary: 'real daemons: idle RSS, 200-job instant lateness, CPU per launch, 50 jobs/s',
  metricPrefixes: ['launch'],
  async run(context) {
    const revisions: Revision[] = [
      { name: 'current', root: context.repoRoot, spawnPath: 'default' },
      { name: 'in-process', root: context.repoRoot, spawnPath: 'in-process' },
    ];
    const previousRoot = process.env['YACRON2_BENCH_PREVIOUS_ROOT'];
    if (previousRoot !== undefined && previousRoot !== '') {
      revisions.push({ name: 'previous', root: previousRoot, spawnPath: 'default' });
    }
    const repetitions = Number(process.env['YACRON2_BENCH_LAUNCH_REPS'] ?? '3');
    const results = new Map<string, Results>(revisions.map((r) => [r.name, new Map()]));
    const cases: {
      key: string;
      script: string;
      args: (root: string, spawnPath: SpawnPath) => string[];
    }[] = [
      ...SIZES.map((jobs) => ({
        key: `instant.${label(jobs)}`,
        script: 'cases/launch-daemon.js',
        args: (root: string, spawnPath: SpawnPath) => [
          root,
          String(jobs),
          'stateless',
          context.workDir,
          `${INSTANTS}`,
          spawnPath,
        ],
      })),
      {
        key: 'instant.state.1k',
        script: 'cases/launch-daemon.js',
        args: (root: string, spawnPath: SpawnPath) => [
          root,
          '1000',
          'state',
          context.workDir,
          `${INSTANTS}`,
          spawnPath,
        ],
      },
      {
        key: 'instant.floor',
        script: 'cases/launch-floor.js',
        args: (root: string) => [root, context.workDir, `${INSTANTS}`],
      },
      {
        key: 'throughput.daemon',
        script: 'cases/launch-throughput.js',
        args: (root: string, spawnPath: SpawnPath) => [
          root,
          'daemon',
          '50',
          '8',
          context.workDir,
          spawnPath,
        ],
      },
      {
        key: 'throughput.loop',
        script: 'cases/launch-throughput.js',
        args: (root: string, spawnPath: SpawnPath) => [
          root,
          'loop',
          '50',
          '8',
          context.workDir,
          spawnPath,
        ],
      },
    ];
    const chosen = chooseCases(cases, process.env['YACRON2_BENCH_LAUNCH_CASES']);
    // Repetition-major and revision-interleaved: a noisy minute hits every case and both builds.
    for (let repetition = 0; repetition < repetitions; repetition++) {
      for (const item of chosen) {
        for (const revision of revisions) {
          if (FLOORS.has(item.key) && revision.name !== 'current') continue;
          context.progress(`launch: ${item.key} ${revision.name} #${repetition + 1}`);
          const { runs } = await runFresh(context, item.script, 1, {
            args: () => item.args(revision.root, revision.spawnPath),
            timeoutMs: 240_000,
          });
          const bucket = results.get(revision.name)!;
          bucket.set(item.key, [...(bucket.get(item.key) ?? []), ...runs.flat()]);
        }
      }
    }
    emitAll(context, results);
  },
};

/**
 * YACRON2_BENCH_LAUNCH_CASES: a comma-separated list of case-key prefixes (`instant.1k`,
 * `instant.state`, `instant`, `throughput`); unset or empty runs every case. A prefix that
 * matches no case is an error, so a typo does not silently measure nothing.
 */
function chooseCases<T extends { readonly key: string }>(
  cases: readonly T[],
  filter: string | undefined,
): readonly T[] {
  const prefixes = (filter ?? '')
    .split(',')
    .map((prefix) => prefix.trim())
    .filter((prefix) => prefix !== '');
  if (prefixes.length === 0) return cases;
  for (const prefix of prefixes) {
    if (!cases.some((item) => item.key.startsWith(prefix))) {
      throw new Error(
        `Cannot filter the launch cases: '${prefix}' matches none of ${cases.map((c) => c.key).join(', ')}`,
      );
    }
  }
  return cases.filter((item) => prefixes.some((prefix) => item.key.startsWith(prefix)));
}

interface Value {
  readonly value: number;
  readonly details: Record<string, unknown>;
}

function emitAll(context: BenchContext, results: Map<string, Results>): void {
  const current = results.get('current')!;
  const inProcess = results.get('in-process');
  const previous = results.get('previous');
  const emit = (
    name: string,
    unit: string,
    target: Target | null,
    statistic: string,
    measure: (samples: Results) => Value | null,
  ): void => {
    const now = measure(current);
    const forced = inProcess === undefined ? null : measure(inProcess);
    const before = previous === undefined ? null : measure(previous);
    const comparison =
      before === null
        ? {}
        : {
            previous: round(before.value, 2),
            ratioToPrevious: now === null ? null : round(now.value / before.value, 2),
            previousDetails: before.details,
          };
    context.emit(
      metricLine(name, now === null ? null : round(now.value, 2), unit, target, {
        statistic,
        ...(now?.details ?? { reason: 'no sample' }),
        ...(forced === null
          ? {}
          : {
              inProcess: round(forced.value, 2),
              ratioToInProcess: now === null ? null : round(now.value / forced.value, 2),
              inProcessDetails: forced.details,
            }),
        ...comparison,
      }),
    );
  };

  const floor = instantLateness(current.get('instant.floor') ?? [], 'later');
  emit(
    'launch.instant-200.floor.p99',
    'ms',
    null,
    'the same p99 of 200 bash commands posix_spawned at each instant by a bare C loop (bench/native/instant-floor.c: the floor on this machine)',
    () => floor,
  );
  for (const jobs of SIZES) {
    const key = `instant.${label(jobs)}`;
    emit(
      `launch.idle-rss.${label(jobs)}`,
      'MB',
      TARGETS.rss.get(jobs) ?? null,
      'median over fresh daemons of VmRSS just before the first instant (idle since start-up)',
      (r) => idleRss(r.get(key) ?? []),
    );
    addInstantMetrics(emit, key, label(jobs), floor);
  }
  addInstantMetrics(emit, 'instant.state.1k', 'state.1k', floor);

  const loop = throughput(current.get('throughput.loop') ?? []);
  emit(
    'launch.every-second-50.p99',
    'ms',
    null,
    'median over fresh daemons of the p99 start lateness of 50 jobs every second (8 measured s)',
    (r) => {
      const value = throughput(r.get('throughput.daemon') ?? []);
      if (value === null) return null;
      const ratio = loop === null ? null : round(value.value / loop.value, 2);
      return { value: value.value, details: { ...value.details, ratioToBareLoop: ratio } };
    },
  );
  emit(
    'launch.every-second-50.bare-loop.p99',
    'ms',
    null,
    'the same from a bare node spawn loop (the floor on this machine)',
    () => loop,
  );
}

type Emit = (
  name: string,
  unit: string,
  target: Target | null,
  statistic: string,
  measure: (samples: Results) => Value | null,
) => void;

function addInstantMetrics(emit: Emit, key: string, suffix: string, floor: Value | null): void {
  emit(
    `launch.instant-200.p99.${suffix}`,
    'ms',
    TARGETS.instantP99,
    'median over fresh daemons of the median, over the instants after the first, of the p99 start lateness of the 200 runs',
    (r) => {
      const value = instantLateness(r.get(key) ?? [], 'later');
      if (value === null) return null;
      const ratio = floor === null ? null : round(value.value / floor.value, 2);
      return { value: value.value, details: { ...value.details, ratioToFloor: ratio } };
    },
  );
  emit(
    `launch.instant-200.first.p99.${suffix}`,
    'ms',
    TARGETS.instantP99,
    'median over fresh daemons of the p99 start lateness of the first instant',
    (r) => instantLateness(r.get(key) ?? [], 'first'),
  );
  emit(
    `launch.cpu-per-launch.${suffix}`,
    'ms',
    TARGETS.cpuPerLaunchMs,
    'median over fresh daemons and later instants of the daemon process CPU (utime+stime) from 0.3 s before an instant to 0.4 s before the next (5 s apart) / 200',
    (r) => cpuPerLaunch(r.get(key) ?? []),
  );
}

interface Instant {
  readonly runs: number;
  readonly latenessMs: number[];
  readonly cpuTicks: number;
  readonly helperCpuTicks: number;
}

const instantsOf = (sample: Sample): Instant[] =>
  (sample['instants'] as Instant[] | undefined) ?? [];

function idleRss(samples: Sample[]): Value | null {
  if (samples.length === 0) return null;
  const mb = (key: string): number[] => samples.map((s) => numberField(s, key) / 1024);
  const helperAnon = mb('helperRssAnonKb').filter(Number.isFinite);
  return {
    value: median(mb('idleRssKb')),
    details: {
      samples: roundAll(mb('idleRssKb'), 1),
      rssAnonMB: round(median(mb('idleRssAnonKb')), 1),
      helperRssMB: helperAnon.length === 0 ? null : round(median(mb('helperRssKb')), 1),
      helperRssAnonMB: helperAnon.length === 0 ? null : round(median(helperAnon), 1),
      rssAfterInstantsMB: round(median(mb('rssAfterKb')), 1),
    },
  };
}

function instantLateness(samples: Sample[], which: 'first' | 'later'): Value | null {
  // A floor that could not be built reports no instants (and said why on stderr).
  samples = samples.filter((sample) => instantsOf(sample).length > 0);
  const perProcess = samples.map((sample) => {
    const instants = instantsOf(sample);
    const chosen = which === 'first' ? instants.slice(0, 1) : instants.slice(1);
    return median(chosen.map((instant) => percentile(instant.latenessMs, 99)));
  });
  if (perProcess.length === 0) return null;
  const runs = samples.flatMap((s) => instantsOf(s).map((instant) => instant.runs));
  return {
    value: median(perProcess),
    details: {
      samples: roundAll(perProcess, 1),
      p50: round(
        median(
          samples.flatMap((s) =>
            (which === 'first' ? instantsOf(s).slice(0, 1) : instantsOf(s).slice(1)).map(
              (instant) => percentile(instant.latenessMs, 50),
            ),
          ),
        ),
        1,
      ),
      runsPerInstant: runs,
      expectedRunsPerInstant: BURST,
    },
  };
}

function cpuPerLaunch(samples: Sample[]): Value | null {
  const later = samples.flatMap((s) => instantsOf(s).slice(1));
  if (later.length === 0) return null;
  const perLaunch = later.map((instant) => (instant.cpuTicks * TICK_MS) / BURST);
  const helper = later.map((instant) => (instant.helperCpuTicks * TICK_MS) / BURST);
  return {
    value: median(perLaunch),
    details: {
      samples: roundAll(perLaunch, 2),
      helperCpuPerLaunchMs: round(median(helper), 2),
      firstInstantMs: roundAll(
        samples.map((s) => ((instantsOf(s)[0]?.cpuTicks ?? Number.NaN) * TICK_MS) / BURST),
        2,
      ),
    },
  };
}

function throughput(samples: Sample[]): Value | null {
  if (samples.length === 0) return null;
  const p99 = samples.map((s) => percentile((s['latenessMs'] as number[] | undefined) ?? [], 99));
  const launches = samples.map((s) => numberField(s, 'launches'));
  const seconds = samples.map((s) => numberField(s, 'seconds'));
  const cpu = samples.map(
    (s, index) => (numberField(s, 'cpuTicks') * TICK_MS) / (launches[index] ?? Number.NaN),
  );
  return {
    value: median(p99),
    details: {
      samples: roundAll(p99, 1),
      launchesPerSecond: roundAll(
        launches.map((n, index) => n / (seconds[index] ?? Number.NaN)),
        1,
      ),
      cpuPerLaunchMs: round(median(cpu), 2),
    },
  };
}
