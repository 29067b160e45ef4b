// SseStream against a sink that never drains: the queue stays bounded, the client is cut off
// with the slow-consumer marker and destroyed after the grace; keep-alive pings on a FakeClock.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { FakeClock } from '../common/index.js';
import { SLOW_CONSUMER_END, SseStream, type SseSink } from './sse-stream.js';

class StalledSink extends EventEmitter implements SseSink {
  readonly chunks: string[] = [];
  writableLength = 0;
  maxWritableLength = 0;
  ended = false;
  socketDestroyed = false;
  readonly socket = {
    destroy: (): void => {
      this.socketDestroyed = true;
      this.emit('close');
    },
  };

  write(chunk: string): boolean {
    this.chunks.push(chunk);
    this.writableLength += chunk.length;
    this.maxWritableLength = Math.max(this.maxWritableLength, this.writableLength);
    return false;
  }

  end(): void {
    this.ended = true;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const LIMITS = {
  maxQueuedBytes: 10_000,
  maxStreams: 10,
  maxStreamsPerClient: 10,
  closeGraceMs: 5_000,
  keepAliveMs: 15_000,
};

void test('a client that never reads is cut off at the bound, then destroyed after the grace', async () => {
  const clock = new FakeClock();
  const sink = new StalledSink();
  const stream = new SseStream(sink, clock, LIMITS);
  let closed = 0;
  stream.onClose(() => closed++);
  const data = JSON.stringify({ line: 'x'.repeat(80) });
  for (let index = 0; index < 10_000; index++) stream.send('line', data);
  assert.equal(stream.closed, true);
  assert.equal(closed, 1);
  assert.ok(sink.ended);
  const marker = `event: end\ndata: ${SLOW_CONSUMER_END}\n\n`;
  assert.equal(sink.chunks.at(-1), marker);
  assert.ok(sink.maxWritableLength <= LIMITS.maxQueuedBytes + marker.length);
  assert.ok(stream.dropped > 9_000);
  assert.equal(sink.socketDestroyed, false);
  await clock.advance(LIMITS.closeGraceMs);
  assert.equal(sink.socketDestroyed, true);
});

void test('the replay keeps only the newest events that fit half the queue bound', () => {
  const clock = new FakeClock();
  const sink = new StalledSink();
  const stream = new SseStream(sink, clock, LIMITS);
  // 50 events of ~1 KB: 50 KB of replay against a 10 KB bound.
  const events = Array.from({ length: 50 }, (_, index) => ({
    event: 'line',
    data: `${String(index).padStart(2, '0')}${'y'.repeat(998)}`,
  }));
  const left = stream.replay(events);
  assert.equal(left, 46);
  assert.equal(sink.chunks.length, 1);
  assert.ok(sink.writableLength <= LIMITS.maxQueuedBytes / 2, `${sink.writableLength} bytes`);
  assert.deepEqual(
    [...(sink.chunks[0] ?? '').matchAll(/data: (\d\d)/g)].map((match) => match[1]),
    ['46', '47', '48', '49'],
  );
  assert.equal(stream.closed, false);
  // The live events get what is left of the bound.
  for (let index = 0; index < 5; index++) stream.send('line', 'z'.repeat(1_000));
  assert.equal(stream.closed, false);
  for (let index = 0; index < 5; index++) stream.send('line', 'z'.repeat(1_000));
  assert.equal(stream.closed, true);
});

void test('a ping goes out after keepAliveMs without an event, and ends stop the timer', async () => {
  const clock = new FakeClock();
  const sink = new StalledSink();
  const stream = new SseStream(sink, clock, { ...LIMITS, maxQueuedBytes: 1_000_000 });
  await clock.advance(10_000);
  stream.send('line', '{}');
  await clock.advance(14_999);
  assert.deepEqual(sink.chunks, ['event: line\ndata: {}\n\n']);
  await clock.advance(1);
  assert.deepEqual(sink.chunks.slice(1), [': ping\n\n']);
  await clock.advance(15_000);
  assert.equal(sink.chunks.length, 3);
  stream.end({ event: 'end', data: '{}' });
  assert.ok(sink.ended);
  await clock.advance(60_000);
  assert.equal(sink.chunks.length, 4);
  assert.equal(clock.pendingTimers, 0);
});

void test('a client that goes away closes the stream once', () => {
  const clock = new FakeClock();
  const sink = new StalledSink();
  const stream = new SseStream(sink, clock, LIMITS);
  let closed = 0;
  stream.onClose(() => closed++);
  sink.emit('close');
  sink.emit('close');
  assert.equal(closed, 1);
  stream.send('line', '{}');
  assert.equal(sink.chunks.length, 0);
  assert.equal(clock.pendingTimers, 0);
});
