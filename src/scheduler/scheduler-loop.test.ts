import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { makeConfig, makeJob } from '../config/testing.js';
import { MAX_SLEEP_MS } from './scheduler.js';
import { createHarness, T0 } from './test-harness.js';

const MINUTE = 60_000;

void describe('scheduler loop', () => {
  void it('keeps one timer for 1,000 jobs and fires them all from one heap', async () => {
    const jobs = Array.from({ length: 1000 }, (_, i) =>
      makeJob({ name: `j${i}`, schedule: `${i % 60} * * * *` }),
    );
    const h = createHarness(jobs);
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    assert.equal(h.clock.pendingTimers, 1);
    for (let minute = 0; minute < 60; minute++) {
      await h.clock.advance(MINUTE);
      assert.ok(h.clock.pendingTimers <= 2, `pending timers ${h.clock.pendingTimers}`);
    }
    assert.equal(h.runner.runs.length, 1000);
    assert.equal(new Set(h.runner.runs.map((run) => run.job.name)).size, 1000);
    await h.stop();
  });

  void it('never sleeps longer than 30 s and re-arms on every wake', async () => {
    const h = createHarness([makeJob({ name: 'daily', schedule: '0 3 * * *' })]);
    h.scheduler.start();
    assert.equal(h.clock.nextTimerDelayMs(), MAX_SLEEP_MS);
    await h.clock.advance(MAX_SLEEP_MS);
    assert.equal(h.clock.pendingTimers, 1);
    assert.equal(h.clock.nextTimerDelayMs(), MAX_SLEEP_MS);
    await h.stop();
    assert.equal(h.clock.pendingTimers, 0);
  });

  void it('never fires a cron job on the start-up pass, even exactly on its boundary', async () => {
    const h = createHarness([makeJob({ name: 'every-minute', schedule: '* * * * *' })]);
    h.scheduler.start(); // T0 is 00:00:00.000, a matching boundary
    await h.clock.advance(0);
    assert.equal(h.runner.runs.length, 0);
    assert.equal(h.scheduler.getNextFireAtMs('every-minute'), T0 + MINUTE);
    await h.clock.advance(MINUTE - 1);
    assert.equal(h.runner.runs.length, 0);
    await h.clock.advance(1);
    assert.equal(h.runner.runs.length, 1);
    assert.deepEqual(
      h.of('run:started').map((e) => [e.trigger, e.scheduledAtMs, e.attempt, e.decisionLatenessMs]),
      [['schedule', T0 + MINUTE, 0, 0]],
    );
    await h.stop();
  });

  void it('seeds after the start instant it is given: slots since then fire once, late', async () => {
    // The daemon's catch-up owes the slots up to its start instant; start() is called later.
    const h = createHarness([makeJob({ name: 'every-second', schedule: '* * * * * * *' })], {
      startMs: T0 + 2_500,
    });
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start(T0 + 200);
    await h.clock.advance(0);
    assert.deepEqual(
      h.of('run:started').map((e) => [e.trigger, e.scheduledAtMs]),
      [
        ['schedule', T0 + 1_000],
        ['schedule', T0 + 2_000],
      ],
    );
    await h.clock.advance(500);
    assert.deepEqual(
      h.of('run:started').map((e) => e.scheduledAtMs),
      [T0 + 1_000, T0 + 2_000, T0 + 3_000],
    );
    await h.stop();
  });

  void it('fires 7-field jobs on whole seconds', async () => {
    const h = createHarness([makeJob({ name: 'fast', schedule: '*/2 * * * * * *' })], {
      startMs: T0 + 500,
    });
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    await h.clock.advance(6_000);
    assert.deepEqual(
      h.of('run:started').map((e) => e.scheduledAtMs),
      [T0 + 2000, T0 + 4000, T0 + 6000],
    );
    await h.stop();
  });

  void it('services simultaneous due jobs in config order', async () => {
    const names = ['c', 'a', 'b', 'e', 'd'];
    const h = createHarness(names.map((name) => makeJob({ name, schedule: '*/5 * * * *' })));
    h.scheduler.start();
    await h.clock.advance(5 * MINUTE);
    assert.deepEqual(
      h.runner.runs.map((run) => run.job.name),
      names,
    );
    await h.stop();
  });

  void it('services a large simultaneous burst in config order too', async () => {
    // Names in a scrambled order; 300 due at once takes the packed-key sort.
    const names = Array.from({ length: 300 }, (_, i) => `j${(i * 7919) % 300}`);
    const h = createHarness(names.map((name) => makeJob({ name, schedule: '*/5 * * * *' })));
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    await h.clock.advance(5 * MINUTE);
    assert.deepEqual(
      h.runner.runs.map((run) => run.job.name),
      names,
    );
    await h.stop();
  });

  void it('stamps each decision of a wake with its own clock read', async () => {
    // A gate that takes 1 ms of wall time per decision: the fifth job is decided 4 ms after the
    // wake, and its decision lateness says so (it is not the wake's single clock read).
    let clock: { setWall(ms: number): void; now(): number } | null = null;
    const h = createHarness(
      ['a', 'b', 'c', 'd', 'e'].map((name) =>
        makeJob({
          name,
          schedule: '*/5 * * * *',
          concurrencyPolicy: name === 'e' ? 'Forbid' : 'Allow',
        }),
      ),
      {
        gate: () => {
          clock?.setWall(clock.now() + 1);
          return { kind: 'run' };
        },
      },
    );
    clock = h.clock;
    h.scheduler.start();
    h.runner.setDefault({ durationMs: 7 * MINUTE });
    await h.clock.advance(5 * MINUTE);
    assert.deepEqual(
      h.of('run:started').map((e) => [e.job.name, e.decisionLatenessMs]),
      [
        ['a', 0],
        ['b', 1],
        ['c', 2],
        ['d', 3],
        ['e', 4],
      ],
    );
    // The next wake: 'e' is still running and Forbid skips it; the skip carries its own instant.
    await h.clock.advance(5 * MINUTE);
    const skipped = h.of('fire:skipped');
    assert.deepEqual(
      skipped.map((e) => [e.jobName, e.reason, e.decisionLatenessMs]),
      [['e', 'forbid', 4]],
    );
    await h.stop();
  });

  void it('starts a job that comes due during a burst in the next slice, not after the burst', async () => {
    // 200 jobs due at 00:01:00 launch 10 per slice, 100 ms apart (~2 s). 'lone' (first in config)
    // and 'tail' (last) fire every second: each later wake is a batch of its own, and batches
    // take turns with the burst.
    const burst = Array.from({ length: 200 }, (_, i) =>
      makeJob({ name: `b${i}`, schedule: '0 1 0 * * * *' }),
    );
    const h = createHarness(
      [
        makeJob({ name: 'lone', schedule: '* * * * * * *' }),
        ...burst,
        makeJob({ name: 'tail', schedule: '* * * * * * *' }),
      ],
      { startMs: T0 + MINUTE - 500, launchSliceSize: 10, yieldToLoop: (clock) => clock.sleep(100) },
    );
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    await h.clock.advance(3_000);
    const started = h.of('run:started');
    const lone = started.filter((e) => e.job.name === 'lone');
    for (const run of lone) {
      assert.ok(
        run.startedAtMs - run.scheduledAtMs! <= 100,
        `lone slot ${run.scheduledAtMs! - T0} started ${run.startedAtMs - run.scheduledAtMs!} ms late`,
      );
    }
    const lastBurstStart = Math.max(
      ...started.filter((e) => e.job.name.startsWith('b')).map((e) => e.startedAtMs),
    );
    assert.ok(lastBurstStart - (T0 + MINUTE) >= 1_900, 'the burst takes ~2 s to launch');
    assert.ok(lone.some((e) => e.scheduledAtMs === T0 + MINUTE + 1000));
    // 'tail' is behind the burst in its own wake's batch, but its turn in the next wake's batch
    // launches its OLDEST plan: a job's launches keep their decision order.
    const tail = started.filter((e) => e.job.name === 'tail').map((e) => e.scheduledAtMs! - T0);
    assert.deepEqual(
      tail,
      [...tail].sort((a, b) => a - b),
    );
    const firstTail = started.find((e) => e.job.name === 'tail');
    assert.equal(firstTail?.scheduledAtMs, T0 + MINUTE);
    assert.ok(firstTail.startedAtMs < lastBurstStart, 'its first run did not wait for the burst');
    await h.stop();
  });

  void it('orders fires by instant across jobs', async () => {
    const h = createHarness([
      makeJob({ name: 'ten', schedule: '10 * * * *' }),
      makeJob({ name: 'two', schedule: '2 * * * *' }),
      makeJob({ name: 'five', schedule: '5 * * * *' }),
    ]);
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    await h.clock.advance(11 * MINUTE);
    assert.deepEqual(
      h.of('run:started').map((e) => [e.job.name, (e.scheduledAtMs! - T0) / MINUTE]),
      [
        ['two', 2],
        ['five', 5],
        ['ten', 10],
      ],
    );
    await h.stop();
  });

  void it('launches enabled @reboot jobs once at start, in config order, never disabled ones', async () => {
    const h = createHarness([
      makeJob({ name: 'r2', schedule: '@reboot' }),
      makeJob({ name: 'cron', schedule: '* * * * *' }),
      makeJob({ name: 'r1', schedule: '@reboot' }),
      makeJob({ name: 'off', schedule: '@reboot', enabled: false }),
    ]);
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    h.scheduler.start(); // idempotent
    assert.deepEqual(
      h.of('run:started').map((e) => [e.job.name, e.trigger, e.scheduledAtMs]),
      [
        ['r2', 'reboot', null],
        ['r1', 'reboot', null],
      ],
    );
    await h.clock.advance(10 * MINUTE);
    assert.deepEqual(
      h.runner.runs.filter((run) => run.job.schedule.kind === 'reboot').map((run) => run.job.name),
      ['r2', 'r1'],
    );
    await h.stop();
  });

  void it('replays every slot of a wake < 10 s late, sequentially under the policy', async () => {
    const h = createHarness(
      [
        makeJob({ name: 'allow', schedule: '* * * * * * *' }),
        makeJob({ name: 'forbid', schedule: '* * * * * * *', concurrencyPolicy: 'Forbid' }),
      ],
      { startMs: T0 },
    );
    h.scheduler.start();
    // Step the wall clock 4.5 s forward while the monotonic timer still waits for 1 s.
    h.clock.setWall(T0 + 4_500 - 1_000);
    await h.clock.advance(1_000);
    assert.deepEqual(
      h
        .of('run:started')
        .filter((e) => e.job.name === 'allow')
        .map((e) => e.scheduledAtMs! - T0),
      [1000, 2000, 3000, 4000],
    );
    assert.deepEqual(
      h
        .of('run:started')
        .filter((e) => e.job.name === 'forbid')
        .map((e) => e.scheduledAtMs! - T0),
      [1000],
    );
    assert.deepEqual(
      h.of('fire:skipped').map((e) => [e.jobName, e.reason, e.scheduledAtMs! - T0]),
      [
        ['forbid', 'forbid', 2000],
        ['forbid', 'forbid', 3000],
        ['forbid', 'forbid', 4000],
      ],
    );
    assert.equal(h.scheduler.getNextFireAtMs('allow'), T0 + 5000);
    assert.equal(h.of('schedule:late').length, 0);
    await h.stop();
  });

  void it('fires once at ≥ 10 s late only when the current slot matches, with a warning', async () => {
    const h = createHarness([
      makeJob({ name: 'minutely', schedule: '* * * * *' }),
      makeJob({ name: 'hourly', schedule: '0 * * * *' }),
    ]);
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    // A suspend: the wall clock jumps ahead while the timer sleeps its first 30 s; it wakes
    // at 03:20:15 wall time.
    h.clock.setWall(T0 + 200 * MINUTE + 15_000 - MAX_SLEEP_MS);
    await h.clock.advance(MAX_SLEEP_MS);
    assert.deepEqual(
      h.of('run:started').map((e) => [e.job.name, (e.scheduledAtMs! - T0) / MINUTE]),
      [['minutely', 200]],
    );
    assert.deepEqual(
      h.of('schedule:late').map((e) => [e.jobName, e.firedOnce, (e.nextFireAtMs! - T0) / MINUTE]),
      [
        ['minutely', true, 201],
        ['hourly', false, 240],
      ],
    );
    assert.equal(h.logged('seconds late').length, 2);
    assert.equal(h.of('clock:jumped')[0]?.direction, 'forward');
    await h.stop();
  });

  void it('lets pending fires wait after a backwards wall step (no re-fire of fired slots)', async () => {
    const h = createHarness([makeJob({ name: 'm', schedule: '* * * * *' })]);
    h.runner.setDefault({ durationMs: 0 });
    h.scheduler.start();
    await h.clock.advance(5 * MINUTE);
    assert.equal(h.runner.runs.length, 5);
    // NTP steps the wall clock back 3 minutes: 00:05 → 00:02.
    h.clock.setWall(T0 + 2 * MINUTE);
    await h.clock.advance(3 * MINUTE + 59_000);
    assert.equal(h.runner.runs.length, 5, 'slots 00:03–00:05 must not fire again');
    assert.equal(h.of('clock:jumped')[0]?.direction, 'backward');
    await h.clock.advance(1_000);
    assert.deepEqual(
      h.of('run:started').map((e) => (e.scheduledAtMs! - T0) / MINUTE),
      [1, 2, 3, 4, 5, 6],
    );
    await h.stop();
  });

  void it('arms wakeLeadMs early and yields, not sleeps, into the slot', async () => {
    // Each yield takes 1 ms of fake time here (setImmediate takes microseconds in the daemon).
    const yields: number[] = [];
    const every10s = '*/10 * * * * * *';
    const h = createHarness([makeJob({ name: 'm', schedule: every10s })], {
      wakeLeadMs: 2,
      yieldToLoop: (clock) => (yields.push(clock.now() - T0), clock.sleep(1)),
    });
    h.scheduler.start();
    assert.equal(h.clock.nextTimerDelayMs(), 10_000 - 2);
    await h.clock.advance(10_000);
    assert.deepEqual(yields, [9_998, 9_999]);
    assert.deepEqual(
      h.of('run:started').map((e) => [e.scheduledAtMs! - T0, e.decisionLatenessMs]),
      [[10_000, 0]],
    );
    assert.equal(h.of('loop:woke').length, 1, 'the early wakes are not wakes');
    // A reload while it yields re-arms; the stale yield does not wake the loop a second time.
    await h.clock.advance(10_000 - 2);
    h.scheduler.applyConfig(makeConfig([makeJob({ name: 'm', schedule: every10s })]));
    await h.clock.advance(2);
    assert.deepEqual(
      h.of('run:started').map((e) => e.startedAtMs - T0),
      [10_000, 20_000],
    );
    assert.equal(h.of('loop:woke').length, 2);
    await h.stop();
  });

  void it('does nothing on an early wake', async () => {
    const h = createHarness([makeJob({ name: 'm', schedule: '* * * * *' })]);
    h.scheduler.start();
    // The wall clock runs slow relative to the timer: the wake comes before the slot.
    h.clock.setWall(T0 - 2_000);
    await h.clock.advance(MINUTE);
    assert.equal(h.runner.runs.length, 0);
    assert.equal(h.clock.nextTimerDelayMs(), 2_000);
    await h.clock.advance(2_000);
    assert.equal(h.runner.runs.length, 1);
    await h.stop();
  });

  void it('drops a job with no further occurrence silently', async () => {
    const h = createHarness([makeJob({ name: 'past', schedule: '0 0 1 1 * 2025' })]);
    h.scheduler.start();
    assert.equal(h.scheduler.getNextFireAtMs('past'), null);
    assert.equal(h.scheduler.getJobState('past').nextFireAtMs, null);
    await h.stop();
  });

  void it('launches a burst in slices and records decision lateness for every due job', async () => {
    const jobs = Array.from({ length: 40 }, (_, i) =>
      makeJob({ name: `b${i}`, schedule: '* * * * *' }),
    );
    const h = createHarness(jobs, { launchSliceSize: 16 });
    h.scheduler.start();
    let startedAtFirstYield = -1;
    const launchesPerWake: number[] = [];
    h.scheduler.events.on('loop:woke', (wake) => {
      if (wake.dueJobs === 0) return;
      launchesPerWake.push(wake.launches);
      // The first slice runs synchronously right after the decision pass; the zero timer that
      // continues the burst is queued behind this one.
      h.clock.setTimer(() => (startedAtFirstYield = h.runner.runs.length), 0);
    });
    await h.clock.advance(MINUTE);
    assert.deepEqual(launchesPerWake, [40]);
    assert.equal(startedAtFirstYield, 16);
    assert.equal(h.runner.runs.length, 40);
    assert.ok(h.of('run:started').every((e) => e.decisionLatenessMs === 0));
    await h.stop();
  });
});
