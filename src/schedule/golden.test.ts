// The recorded vectors of the legacy engine (test/fixtures/cron-golden.json), one test each:
// parse acceptance, next fire from UTC instants, next fire from zoned instants, wall matching
// and equality. Negative legacy delays (the repeated-hour bug) are replaced by the documented
// rule: the first fire after 'now' that is not a second pass of the repeated hour.
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { isYacronError } from '../common/index.js';
import { matchesAt, nextFireTime, parseSchedule, schedulesEqual } from './index.js';
import {
  bruteForceNextFire,
  instantOfLocal,
  intlWall,
  parseNaiveUtc,
} from './intl-reference.test.js';

interface GoldenVector {
  readonly ok: boolean;
  readonly next?: readonly (number | null)[];
  readonly aware_next?: readonly (number | null)[];
  readonly test?: readonly boolean[];
}

interface Golden {
  readonly _comment: string;
  readonly naive_next_nows: readonly string[];
  readonly aware_next_nows: readonly { dt: string; fold: 0 | 1; tz: string }[];
  readonly test_dts: readonly string[];
  readonly equality: readonly { a: string; b: string; equal: boolean }[];
  readonly exprs: Readonly<Record<string, GoldenVector>>;
}

const golden = JSON.parse(
  readFileSync(new URL('../../test/fixtures/cron-golden.json', import.meta.url), 'utf8'),
) as Golden;

const awareNows = golden.aware_next_nows.map((now) => ({
  ...now,
  epochMs: instantOfLocal(now.tz, now.dt, now.fold),
}));

function describeDelay(seconds: number | null): string {
  return seconds === null ? 'no fire before 2099' : `+${seconds} s`;
}

void describe('golden vectors: the aware nows resolve to the recorded local times', () => {
  for (const now of awareNows) {
    void it(`${now.dt} fold ${now.fold} in ${now.tz} is ${new Date(now.epochMs).toISOString()}`, () => {
      assert.equal(intlWall(now.tz, now.epochMs), now.dt);
    });
  }
});

for (const [expression, vector] of Object.entries(golden.exprs)) {
  const label = JSON.stringify(expression);
  void describe(`golden vectors for ${label}`, () => {
    if (!vector.ok) {
      void it(`parseSchedule(${label}) rejects it with YC_ERR_SCHEDULE_INVALID`, () => {
        assert.throws(
          () => parseSchedule(expression),
          (error: unknown) =>
            isYacronError(error, 'YC_ERR_SCHEDULE_INVALID') &&
            error.message.startsWith(`invalid schedule '${expression}': `),
        );
      });
      return;
    }

    void it(`parseSchedule(${label}) accepts it`, () => {
      assert.doesNotThrow(() => parseSchedule(expression));
    });

    golden.naive_next_nows.forEach((now, index) => {
      const expected = vector.next?.[index] ?? null;
      void it(`nextFireTime(${label}) from ${now} UTC is ${describeDelay(expected)}`, () => {
        const nowMs = parseNaiveUtc(now);
        const actual = nextFireTime(parseSchedule(expression), nowMs);
        if (expected === null) {
          assert.equal(actual, null);
        } else {
          assert.notEqual(actual, null);
          assert.ok(Math.abs(actual! - (nowMs + expected * 1000)) <= 1, `got ${actual}`);
        }
      });
    });

    awareNows.forEach((now, index) => {
      const recorded = vector.aware_next?.[index] ?? null;
      const where = `${now.dt} fold ${now.fold} in ${now.tz}`;
      const schedule = (): ReturnType<typeof parseSchedule> =>
        parseSchedule(expression, { timezone: now.tz });
      if (recorded !== null && recorded < 0) {
        void it(`nextFireTime(${label}) from ${where} is the first fire after now that is not a repeat (legacy: ${recorded} s)`, () => {
          const actual = nextFireTime(schedule(), now.epochMs);
          const tickMs = schedule().hasSeconds ? 1000 : 60_000;
          const expected = bruteForceNextFire(expression, now.tz, now.epochMs, {
            tickMs,
            limitMs: 2 * 3_600_000,
          });
          assert.notEqual(expected, null);
          assert.equal(actual, expected);
          assert.ok(actual! > now.epochMs);
        });
        return;
      }
      void it(`nextFireTime(${label}) from ${where} is ${describeDelay(recorded)}`, () => {
        const actual = nextFireTime(schedule(), now.epochMs);
        assert.equal(actual === null ? null : (actual - now.epochMs) / 1000, recorded);
      });
    });

    golden.test_dts.forEach((instant, index) => {
      const expected = vector.test?.[index];
      void it(`matchesAt(${label}, ${instant} UTC) is ${expected}`, () => {
        assert.equal(matchesAt(parseSchedule(expression), parseNaiveUtc(instant)), expected);
      });
    });
  });
}

void describe('golden vectors: equality', () => {
  for (const pair of golden.equality) {
    void it(`schedulesEqual('${pair.a}', '${pair.b}') is ${pair.equal}`, () => {
      assert.equal(schedulesEqual(parseSchedule(pair.a), parseSchedule(pair.b)), pair.equal);
      assert.equal(schedulesEqual(parseSchedule(pair.b), parseSchedule(pair.a)), pair.equal);
    });
  }
});
