// OutputTracker: the logs source choice (docs/http-api.md "GET /jobs/{name}/logs") (newest running,
// else last finished), the 1000-line ring, the character bounds, and forgetting removed jobs.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { createScheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { outputLineText } from '../runner/index.js';
import { OutputTracker } from './output-tracker.js';

function setup(limits?: ConstructorParameters<typeof OutputTracker>[1]) {
  const clock = new FakeClock();
  const runner = new FakeRunner({ clock });
  const jobs = [makeJob({ name: 'a', schedule: '0 0 1 1 *' }), makeJob({ name: 'b' })];
  const scheduler = createScheduler({ clock, logger: silentLogger(), runner }, makeConfig(jobs));
  scheduler.start();
  const tracker = new OutputTracker(scheduler.events, limits);
  return { clock, runner, scheduler, tracker };
}

void test('the source is the newest running instance, else the last finished run, else none', async () => {
  const { runner, scheduler, tracker, clock } = setup();
  assert.equal(tracker.source('a'), null);
  await scheduler.startJob('a');
  await scheduler.startJob('a');
  const [first, second] = runner.runsOf('a');
  first!.emitOutput('stdout', 'one\n');
  second!.emitOutput('stderr', 'two\n');
  assert.deepEqual(tracker.source('a')?.lines(), [{ stream: 'stderr', line: 'two' }]);
  second!.succeed();
  await clock.advance(0);
  assert.deepEqual(tracker.source('a')?.lines(), [{ stream: 'stdout', line: 'one' }]);
  assert.equal(tracker.source('a')?.closed, false);
  first!.succeed();
  await clock.advance(0);
  const last = tracker.source('a');
  assert.equal(last?.closed, true);
  assert.deepEqual(last?.lines(), [{ stream: 'stdout', line: 'one' }]);
  tracker[Symbol.dispose]();
});

void test('keeps the last 1000 lines of a run', async () => {
  const { runner, scheduler, tracker } = setup();
  await scheduler.startJob('a');
  for (let index = 0; index < 1500; index++) runner.last('a').emitOutput('stdout', `${index}\n`);
  const lines = tracker.source('a')!.lines();
  assert.equal(lines.length, 1000);
  assert.equal(lines[0]?.line, '500');
  assert.equal(lines.at(-1)?.line, '1499');
});

void test('bounds characters per run and per line', async () => {
  const { runner, scheduler, tracker } = setup({ maxLines: 1000, maxChars: 100, maxLineChars: 30 });
  await scheduler.startJob('a');
  for (let index = 0; index < 10; index++) {
    runner.last('a').emitOutput('stdout', `${index}${'-'.repeat(19)}\n`);
  }
  const lines = tracker.source('a')!.lines();
  assert.deepEqual(
    lines.map((entry) => entry.line[0]),
    ['5', '6', '7', '8', '9'],
  );
  runner.last('a').emitOutput('stdout', `${'z'.repeat(50)}\n`);
  assert.equal(tracker.source('a')!.lines().at(-1)?.line, `${'z'.repeat(30)} [truncated]`);
});

void test('only the trailing newline is stripped', () => {
  assert.equal(outputLineText('a\r\n', 100), 'a\r');
  assert.equal(outputLineText('a\n\n', 100), 'a\n');
  assert.equal(outputLineText('no newline', 100), 'no newline');
});

void test('a removed job forgets its finished output', async () => {
  const { runner, scheduler, tracker, clock } = setup();
  await scheduler.startJob('a');
  runner.last('a').emitOutput('stdout', 'x\n');
  runner.last('a').succeed();
  await clock.advance(0);
  assert.notEqual(tracker.source('a'), null);
  scheduler.applyConfig(makeConfig([makeJob({ name: 'b' })]));
  assert.equal(tracker.source('a'), null);
});
