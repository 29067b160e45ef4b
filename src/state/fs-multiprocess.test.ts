// Real processes on one store directory: lease mutual exclusion under contention, a SIGKILLed
// holder (the kernel frees its flock at once; its lease frees after the TTL), and concurrent
// appenders that lose nothing. Waits are on process output and exits, bounded, never sleeps.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { systemClock, type Clock, isYacronError } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { FsStateStore } from './fs-store.js';
import { bundleFixtures, startFixture, within, type FixtureProcess } from './test-processes.js';

let base: string;
let bundles: Record<string, string>;
/** Every fixture started, so a failing test leaves no process behind. */
const started: FixtureProcess[] = [];

function start(name: string, args: readonly string[]): FixtureProcess {
  const child = startFixture(bundles[name]!, args);
  started.push(child);
  return child;
}

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'yacron2-state-mp-'));
  bundles = await bundleFixtures(
    ['state-lease-contender', 'state-lease-holder', 'state-appender'],
    path.join(base, 'bundles'),
  );
});
after(async () => {
  for (const child of started) if (child.child.exitCode === null) await child.kill();
  await rm(base, { recursive: true, force: true });
});

async function startAll(processes: FixtureProcess[]): Promise<void> {
  await Promise.all(
    processes.map((child) => child.waitForLine((line) => line === 'ready', 20_000)),
  );
  for (const child of processes) child.send('go');
}

void test('8 processes contending for one lease never hold it at once, and fences only grow', async () => {
  const storePath = path.join(base, 'contend');
  const witness = path.join(base, 'contend-witness.log');
  const rounds = 25;
  const contenders = Array.from({ length: 8 }, (_, n) =>
    start('state-lease-contender', [storePath, witness, `p${n}`, String(rounds)]),
  );
  await startAll(contenders);
  const exits = await within(
    Promise.all(contenders.map((child) => child.exited)),
    60_000,
    'contenders',
  );
  for (const [n, exit] of exits.entries()) assert.equal(exit.code, 0, contenders[n]!.stderr);

  const lines = (await readFile(witness, 'utf8')).trim().split('\n');
  assert.equal(lines.length, 8 * rounds * 2);
  let inside: string | undefined;
  let lastFence = 0;
  for (const [index, line] of lines.entries()) {
    const [event, holder, fenceText] = line.split(' ');
    const fence = Number(fenceText);
    if (event === 'enter') {
      assert.equal(
        inside,
        undefined,
        `line ${index}: ${holder} entered while ${inside} was inside`,
      );
      assert.ok(fence > lastFence, `line ${index}: fence ${fence} after ${lastFence}`);
      lastFence = fence;
      inside = `${holder} ${fence}`;
    } else {
      assert.equal(
        `${holder} ${fence}`,
        inside,
        `line ${index}: exit of a tenure that was not inside`,
      );
      inside = undefined;
    }
  }
  assert.equal(lastFence, 8 * rounds, 'every acquisition was a new tenure');
  const contended = contenders.map((child) =>
    Number(child.lines.find((l) => l.startsWith('done'))!.split(' ')[1]),
  );
  assert.ok(contended.reduce((a, b) => a + b, 0) > 0, 'the processes really did contend');
});

void test('a holder killed with SIGKILL frees the flock at once and its lease after the TTL', async () => {
  const storePath = path.join(base, 'killed');
  const holder = start('state-lease-holder', [storePath, 'slots/job', 'doomed-host', '30000']);
  const { fence, expiresAtMs } = JSON.parse(
    await holder.waitForLine((line) => line.startsWith('{')),
  ) as {
    fence: number;
    expiresAtMs: number;
  };
  assert.equal(fence, 1);
  // Real timers (the flock wait is bounded by them) but a wall clock the test can step to the
  // lease's expiry instead of sleeping through the TTL.
  let wallMs = systemClock.now();
  const clock: Clock = {
    now: () => wallMs,
    monotonic: () => systemClock.monotonic(),
    setTimer: (callback, delayMs) => systemClock.setTimer(callback, delayMs),
    sleep: (delayMs, signal) => systemClock.sleep(delayMs, signal),
  };
  const store = new FsStateStore(
    { path: storePath, topology: 'single-node', lockTimeoutMs: 300 },
    { clock, logger: silentLogger() },
  );
  await store.open();
  await assert.rejects(store.acquireLease('slots/job', 'survivor', 30_000), (error) =>
    isYacronError(error, 'YC_ERR_STATE_TIMEOUT'),
  );

  const exit = await within(holder.kill(), 10_000, 'SIGKILL');
  assert.equal(exit.signal, 'SIGKILL');
  const started = systemClock.monotonic();
  const blocked = await store.acquireLease('slots/job', 'survivor', 30_000);
  assert.ok(systemClock.monotonic() - started < 300, "the kernel released the dead holder's flock");
  assert.deepEqual(blocked, {
    acquired: false,
    holder: 'doomed-host',
    fence: 1,
    expiresAtMs,
    fresh: false,
  });

  wallMs = expiresAtMs - 1;
  assert.equal((await store.acquireLease('slots/job', 'survivor', 30_000)).acquired, false);
  wallMs = expiresAtMs;
  const taken = await store.acquireLease('slots/job', 'survivor', 30_000);
  assert.deepEqual(taken, {
    acquired: true,
    holder: 'survivor',
    fence: 2,
    expiresAtMs: expiresAtMs + 30_000,
    fresh: true,
    previousHolder: 'doomed-host',
  });
  await store.close();
});

void test('4 processes appending to one stream at once lose no record', async () => {
  const storePath = path.join(base, 'append');
  const perWriter = 250;
  const writers = Array.from({ length: 4 }, (_, n) =>
    start('state-appender', [storePath, 'runs/shared', `w${n}`, String(perWriter)]),
  );
  await startAll(writers);
  const exits = await within(
    Promise.all(writers.map((child) => child.exited)),
    60_000,
    'appenders',
  );
  for (const [n, exit] of exits.entries()) assert.equal(exit.code, 0, writers[n]!.stderr);

  const store = new FsStateStore(
    { path: storePath, topology: 'single-node' },
    { clock: systemClock, logger: silentLogger() },
  );
  await store.open();
  const records = await store.list('runs/shared');
  assert.equal(records.length, 4 * perWriter);
  assert.equal(new Set(records.map((record) => record.id)).size, records.length);
  const seen = new Set(
    records.map((record) => `${String(record.data.writer)}:${String(record.data.n)}`),
  );
  for (let w = 0; w < 4; w++) {
    for (let n = 0; n < perWriter; n++) assert.ok(seen.has(`w${w}:${n}`), `w${w}:${n} is missing`);
  }
  const description = await store.describe();
  assert.equal(description.counts.quarantined, 0);
  assert.equal(description.counts.tempFiles, 0);
  await store.close();
});
