// Worker: next-fire computations per second, per zone and expression, each call chained from the
// previous fire (the daemon's access pattern). Cases are interleaved round-robin over several
// short windows so machine noise spreads evenly; run.ts takes the median window.
import { importYacron2, intArg, reportSample } from '../lib/worker-io.js';

const { schedule: engine } = await importYacron2();
const repetitions = intArg(0, 'repetitions');
const windowMs = intArg(1, 'windowMs');

const NEXT_FIRE_EXPRESSIONS = [
  { slug: 'every-5-min', expression: '*/5 * * * *' },
  { slug: 'daily-0230', expression: '30 2 * * *' },
  { slug: 'friday-13th', expression: '0 0 13 * 5' },
  { slug: 'every-10-s', expression: '*/10 * * * * * *' },
] as const;

const NEXT_FIRE_ZONES = [
  { slug: 'utc', timezone: 'UTC' },
  { slug: 'new-york', timezone: 'America/New_York' },
] as const;

// Every chain starts here and restarts here when it runs past 2099 (nextFireTime -> null).
const CHAIN_START_MS = Date.UTC(2026, 0, 1);
const BATCH = 500;

interface Case {
  readonly zone: string;
  /** Expression slug, or 'mixed' (the four expressions in turn, each chained on its own). */
  readonly slug: string;
  readonly schedules: readonly ReturnType<typeof engine.parseSchedule>[];
  /** The chain positions, one per schedule. */
  readonly positions: number[];
  readonly rates: number[];
}

const cases: Case[] = [];
for (const zone of NEXT_FIRE_ZONES) {
  const parsed = NEXT_FIRE_EXPRESSIONS.map(({ expression }) =>
    engine.parseSchedule(expression, { timezone: zone.timezone }),
  );
  parsed.forEach((schedule, index) =>
    cases.push({
      zone: zone.slug,
      slug: NEXT_FIRE_EXPRESSIONS[index]?.slug ?? '?',
      schedules: [schedule],
      positions: [CHAIN_START_MS],
      rates: [],
    }),
  );
  cases.push({
    zone: zone.slug,
    slug: 'mixed',
    schedules: parsed,
    positions: parsed.map(() => CHAIN_START_MS),
    rates: [],
  });
}

// Folded into the reported checksum so no call can be optimised away.
let checksum = 0;

/** Runs `count` chained computations (count a multiple of the schedule count). */
function advance(benchCase: Case, count: number): void {
  const { schedules, positions } = benchCase;
  const width = schedules.length;
  for (let done = 0; done < count; done += width) {
    for (let index = 0; index < width; index++) {
      const schedule = schedules[index]!;
      const next = engine.nextFireTime(schedule, positions[index]!);
      positions[index] = next ?? CHAIN_START_MS;
      checksum = (checksum + (next ?? 1)) % 1_000_000_007;
    }
  }
}

/** Computations per second over one window of about windowMs. */
function measureWindow(benchCase: Case): number {
  let count = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < windowMs) {
    advance(benchCase, BATCH);
    count += BATCH;
    elapsed = performance.now() - started;
  }
  return count / (elapsed / 1000);
}

// Warm-up: JIT, and the zone offset cache over the span the windows will cover.
for (const benchCase of cases) advance(benchCase, 20_000);
for (let repetition = 0; repetition < repetitions; repetition++) {
  for (const benchCase of cases) benchCase.rates.push(measureWindow(benchCase));
}
for (const benchCase of cases) {
  reportSample({
    zone: benchCase.zone,
    slug: benchCase.slug,
    expressions: benchCase.schedules.map((schedule) => schedule.expression),
    timezone: benchCase.schedules[0]?.timezone ?? null,
    rates: benchCase.rates,
    checksum,
  });
}
