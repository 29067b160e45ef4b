// The clocks' delay rules: a delay beyond Node's timer range is waited out in chunks (Node would
// fire it after 1 ms), NaN is 0 and Infinity never fires, the same on systemClock and FakeClock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_TIMER_CHUNK_MS, setChunkedTimer, systemClock, type TimerHost } from './clock.js';
import { FakeClock } from './fake-clock.js';

/** A TimerHost whose time and timers the test drives by hand. */
class ScriptedHost implements TimerHost {
  now = 0;
  readonly armed = new Map<number, { callback: () => void; delayMs: number }>();
  readonly delays: number[] = [];
  #next = 1;

  setTimeout(callback: () => void, delayMs: number): number {
    const id = this.#next++;
    this.armed.set(id, { callback, delayMs });
    this.delays.push(delayMs);
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.armed.delete(handle as number);
  }

  monotonic(): number {
    return this.now;
  }

  /** Let the single armed timer run out (time moves by its delay). */
  fire(): void {
    const [id, timer] = [...this.armed.entries()][0] ?? [];
    assert.ok(id !== undefined && timer !== undefined, 'a timer is armed');
    this.armed.delete(id);
    this.now += timer.delayMs;
    timer.callback();
  }
}

void test('systemClock does not fire a delay beyond 2^31 - 1 ms early (Node would after 1 ms)', async () => {
  let fired = false;
  const far = systemClock.setTimer(() => {
    fired = true;
  }, 2 ** 31);
  // Node's timer list fires in due order: a 1 ms (clamped) timer would run before this one.
  await systemClock.sleep(20);
  far.cancel();
  assert.equal(fired, false);
});

void test('systemClock sleep() honours a 25-day delay and still aborts', async () => {
  const controller = new AbortController();
  let resolved = false;
  const slept = systemClock.sleep(25 * 86_400_000, controller.signal).then(() => {
    resolved = true;
  });
  await systemClock.sleep(20);
  assert.equal(resolved, false);
  controller.abort(new Error('stop'));
  await assert.rejects(slept, /stop/);
});

void test('a chunked timer re-arms for what is left until the whole delay has passed', () => {
  const host = new ScriptedHost();
  let calls = 0;
  setChunkedTimer(host, () => calls++, 2.5 * MAX_TIMER_CHUNK_MS);
  host.fire();
  host.fire();
  assert.equal(calls, 0);
  host.fire();
  assert.equal(calls, 1);
  assert.deepEqual(host.delays, [MAX_TIMER_CHUNK_MS, MAX_TIMER_CHUNK_MS, 0.5 * MAX_TIMER_CHUNK_MS]);
  assert.equal(host.armed.size, 0);
});

void test('a chunk that wakes late shortens the next one (the due instant is fixed)', () => {
  const host = new ScriptedHost();
  let calls = 0;
  setChunkedTimer(host, () => calls++, 250, 100);
  host.now += 40; // the event loop was busy: the first chunk wakes 40 ms late
  host.fire();
  host.fire();
  assert.deepEqual(host.delays, [100, 100, 10]);
  host.fire();
  assert.equal(calls, 1);
});

void test('cancelling between chunks stops the chain', () => {
  const host = new ScriptedHost();
  let calls = 0;
  const timer = setChunkedTimer(host, () => calls++, 300, 100);
  host.fire();
  timer.cancel();
  assert.equal(host.armed.size, 0);
  assert.equal(calls, 0);
});

void test('NaN and negative delays are 0; Infinity arms nothing and never fires', () => {
  const host = new ScriptedHost();
  setChunkedTimer(host, () => undefined, Number.NaN);
  setChunkedTimer(host, () => undefined, -5);
  assert.deepEqual(host.delays, [0, 0]);
  host.armed.clear();
  setChunkedTimer(host, () => undefined, Infinity);
  assert.equal(host.armed.size, 0);
});

void test('FakeClock follows the same rules: NaN fires at once, Infinity never, huge delays exactly', async () => {
  const clock = new FakeClock();
  const fired: string[] = [];
  clock.setTimer(() => fired.push('nan'), Number.NaN);
  clock.setTimer(() => fired.push('never'), Infinity);
  clock.setTimer(() => fired.push('far'), 2 ** 31);
  await clock.advance(0);
  assert.deepEqual(fired, ['nan']);
  await clock.advance(2 ** 31 - 1);
  assert.deepEqual(fired, ['nan']);
  await clock.advance(1);
  assert.deepEqual(fired, ['nan', 'far']);
  await clock.advance(365 * 86_400_000);
  assert.deepEqual(fired, ['nan', 'far']);
});
