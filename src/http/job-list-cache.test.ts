// JobListCache must always render exactly JSON.stringify of every job view rendered from scratch:
// checked after every step of a long pseudo-random sequence of fires, manual starts, completions, failures with
// retries, cancels, reloads and clock moves.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { seededRandom, FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { createScheduler, type Scheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { JobListCache } from './job-list-cache.js';
import { renderJobView } from './job-views.js';
import type { JobView } from './wire/index.js';

function jobSet(variant: number) {
  return [
    makeJob({ name: 'minutely', schedule: '* * * * *' }),
    makeJob({ name: 'seconds', schedule: '*/7 * * * * * *' }),
    makeJob({
      name: 'retrying',
      schedule: '*/2 * * * *',
      retry: { maximumRetries: 2, initialDelayMs: 5_000, maximumDelayMs: 20_000 },
    }),
    makeJob({ name: 'boot', schedule: '@reboot' }),
    makeJob({ name: 'off', enabled: variant % 2 === 0 }),
    makeJob({ name: 'berlin', schedule: '30 2 * * *', timezone: 'Europe/Berlin' }),
    ...(variant % 3 === 0 ? [makeJob({ name: `extra-${variant}`, schedule: '*/3 * * * *' })] : []),
  ];
}

/** The reference: every job's view rendered from scratch, in config order. */
function jobViews(scheduler: Scheduler, clock: FakeClock): JobView[] {
  const nowMs = clock.now();
  return scheduler.getJobStates().map((state) => renderJobView(state, nowMs));
}

async function settle(clock: FakeClock): Promise<void> {
  await clock.advance(0);
}

void test('render() equals JSON.stringify of every rendered job view through 400 random steps', async () => {
  const next = seededRandom(42);
  const clock = new FakeClock(Date.UTC(2026, 2, 29, 0, 0, 0));
  const runner = new FakeRunner({ clock });
  const scheduler: Scheduler = createScheduler(
    { clock, logger: silentLogger(), runner },
    makeConfig(jobSet(0)),
  );
  scheduler.start();
  const cache = new JobListCache(scheduler, clock);
  const seen = { running: 0, retry: 0, scheduled: 0 };
  for (let step = 0; step < 400; step++) {
    const roll = next();
    const names = scheduler.getJobStates().map((state) => state.job.name);
    const name = names[Math.floor(next() * names.length)]!;
    if (roll < 0.3) {
      await clock.advance(Math.floor(next() * 90_000));
    } else if (roll < 0.4) {
      await clock.advance(Math.floor(next() * 3));
    } else if (roll < 0.55) {
      await scheduler.startJob(name).catch(() => undefined);
    } else if (roll < 0.75) {
      const retrying = runner.running('retrying')[0];
      if (retrying && next() < 0.5) {
        retrying.fail(2);
      } else {
        const running = runner.running();
        const run = running[Math.floor(next() * running.length)];
        if (next() < 0.5) run?.succeed();
        else run?.fail(Math.floor(next() * 3) + 1);
      }
      await settle(clock);
    } else if (roll < 0.82) {
      await scheduler.cancelJob(name).catch(() => undefined);
    } else if (roll < 0.87) {
      scheduler.applyConfig(makeConfig(jobSet(Math.floor(next() * 6))));
    } else {
      // Same millisecond, no event: the cached body is reused as is.
      const first = cache.render();
      assert.equal(cache.render(), first);
    }
    assert.equal(
      cache.render().toString('utf8'),
      JSON.stringify(jobViews(scheduler, clock)),
      `step ${step}`,
    );
    for (const view of jobViews(scheduler, clock)) {
      if (view.running) seen.running++;
      if (view.retry) seen.retry++;
      if (view.scheduled_in !== null) seen.scheduled++;
    }
  }
  // The sequence went through every kind of view.
  assert.ok(seen.running > 0 && seen.retry > 0 && seen.scheduled > 0, JSON.stringify(seen));
  cache[Symbol.dispose]();
  for (const run of runner.running()) run.succeed();
  await scheduler.shutdown(0);
});

void test('non-ASCII job names and commands survive the byte-level assembly', async () => {
  const clock = new FakeClock();
  const runner = new FakeRunner({ clock });
  const scheduler = createScheduler(
    { clock, logger: silentLogger(), runner },
    makeConfig([
      makeJob({ name: 'café ☕', command: { kind: 'shell', script: 'echo "ünïcödé" \\ \n' } }),
      makeJob({ name: '日本', schedule: '*/5 * * * *' }),
    ]),
  );
  scheduler.start();
  const cache = new JobListCache(scheduler, clock);
  await clock.advance(1_234);
  assert.equal(cache.render().toString('utf8'), JSON.stringify(jobViews(scheduler, clock)));
  assert.deepEqual(
    JSON.parse(cache.render().toString('utf8')),
    JSON.parse(JSON.stringify(jobViews(scheduler, clock))),
  );
  cache[Symbol.dispose]();
  await scheduler.shutdown(0);
});

void test('an empty job set renders []', () => {
  const clock = new FakeClock();
  const scheduler = createScheduler(
    { clock, logger: silentLogger(), runner: new FakeRunner({ clock }) },
    makeConfig([]),
  );
  const cache = new JobListCache(scheduler, clock);
  assert.equal(cache.render().toString(), '[]');
});
