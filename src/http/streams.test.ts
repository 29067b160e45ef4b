// Server-sent events over a real loopback listener: `GET /jobs/{name}/logs` per docs/http-api.md
// "GET /jobs/{name}/logs" (no-output, replay, live lines, end, keep-alive) and the `GET /events`
// feed; slow consumers are cut off with a marker instead of growing the daemon's memory.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { makeJob } from '../config/testing.js';
import {
  createApiFixture,
  listenOnLoopback,
  openStream,
  type ApiFixture,
} from './http-fixture.test.js';
import type { StreamLimits } from './types.js';

const NEVER = '0 0 1 1 *';

async function withStreams(
  run: (api: ApiFixture, base: string) => Promise<void>,
  streamLimits?: StreamLimits,
): Promise<void> {
  const api = await createApiFixture(
    [
      makeJob({ name: 'out', schedule: NEVER, captureStdout: true }),
      makeJob({ name: 'other', schedule: NEVER }),
    ],
    {
      web: { headers: { 'X-Operator': 'yes', 'Cache-Control': 'no-store' } },
      ...(streamLimits ? { streamLimits } : {}),
    },
  );
  try {
    await run(api, await listenOnLoopback(api.app));
  } finally {
    await api.close();
  }
}

const line = (stream: string, text: string): string =>
  `event: line\ndata: {"stream": "${stream}", "line": "${text}"}\n\n`;
const END = 'event: end\ndata: {}\n\n';

void describe('GET /jobs/{name}/logs', () => {
  void it('404s an unknown job', () =>
    withStreams(async (api) => {
      const response = await api.app.inject({ method: 'GET', url: '/jobs/nope/logs' });
      assert.equal(response.statusCode, 404);
      assert.equal(response.body, '404: Not Found');
    }));

  void it('ends at once with reason no-output when the job has no run', () =>
    withStreams(async (_api, base) => {
      const stream = await openStream(`${base}/jobs/out/logs`);
      assert.equal(stream.status, 200);
      assert.equal(stream.headers['content-type'], 'text/event-stream');
      assert.equal(stream.headers['x-accel-buffering'], 'no');
      // web.headers are merged over the SSE defaults.
      assert.equal(stream.headers['cache-control'], 'no-store');
      assert.equal(stream.headers['x-operator'], 'yes');
      assert.equal(await stream.ended(), 'event: end\ndata: {"reason": "no-output"}\n\n');
    }));

  void it('replays the buffered lines of a running run, then streams live lines, then ends', () =>
    withStreams(async (api, base) => {
      await api.scheduler.startJob('out');
      const run = api.runner.last('out');
      run.emitOutput('stdout', 'first\n');
      run.emitOutput('stdout', 'say "hi"\n');
      const stream = await openStream(`${base}/jobs/out/logs`);
      await stream.waitFor('hi');
      run.emitOutput('stderr', 'second');
      await stream.waitFor('second');
      run.succeed();
      assert.equal(
        await stream.ended(),
        line('stdout', 'first') + line('stdout', 'say \\"hi\\"') + line('stderr', 'second') + END,
      );
    }));

  void it('replays a finished run and ends immediately', () =>
    withStreams(async (api, base) => {
      await api.scheduler.startJob('out');
      const run = api.runner.last('out');
      run.emitOutput('stdout', 'done\n');
      run.succeed();
      await api.clock.advance(0);
      const stream = await openStream(`${base}/jobs/out/logs`);
      assert.equal(await stream.ended(), line('stdout', 'done') + END);
    }));

  void it('follows the newest running instance', () =>
    withStreams(async (api, base) => {
      await api.scheduler.startJob('out');
      await api.scheduler.startJob('out');
      const [older, newer] = api.runner.runsOf('out');
      older!.emitOutput('stdout', 'older\n');
      newer!.emitOutput('stdout', 'newer\n');
      const stream = await openStream(`${base}/jobs/out/logs`);
      await stream.waitFor('newer');
      older!.succeed();
      await api.clock.advance(0);
      newer!.succeed();
      assert.equal(await stream.ended(), line('stdout', 'newer') + END);
    }));

  void it('sends a keep-alive comment after 15 s without a line', () =>
    withStreams(async (api, base) => {
      await api.scheduler.startJob('out');
      const stream = await openStream(`${base}/jobs/out/logs`);
      await api.clock.advance(14_000);
      api.runner.last('out').emitOutput('stdout', 'tick\n');
      await stream.waitFor('tick');
      await api.clock.advance(14_000);
      assert.doesNotMatch(stream.text(), /: ping/);
      await api.clock.advance(1_000);
      await stream.waitFor(': ping\n\n');
      api.runner.last('out').succeed();
      await stream.ended();
    }));

  void it('answers HEAD with the stream headers and no body', () =>
    withStreams(async (api) => {
      const response = await api.app.inject({ method: 'HEAD', url: '/jobs/out/logs' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/event-stream');
      assert.equal(response.body, '');
    }));

  void it('ends open streams when the server closes', async () => {
    const api = await createApiFixture([makeJob({ name: 'out', schedule: NEVER })]);
    const base = await listenOnLoopback(api.app);
    await api.scheduler.startJob('out');
    const stream = await openStream(`${base}/jobs/out/logs`);
    await api.app.close();
    assert.equal(await stream.ended(), '');
    assert.equal(api.outputs.source('out')?.listenerCount, 0);
    await api.close();
  });
});

void describe('GET /events', () => {
  void it('streams run starts, captured lines and finishes as they happen', () =>
    withStreams(async (api, base) => {
      const stream = await openStream(`${base}/events`);
      assert.equal(stream.headers['content-type'], 'text/event-stream');
      await api.scheduler.startJob('out');
      const run = api.runner.last('out');
      run.emitOutput('stdout', 'hello\n');
      run.fail(3);
      await stream.waitFor('event: run:finished');
      const events = stream
        .text()
        .trim()
        .split('\n\n')
        .map((block) => {
          const [event, data] = block.split('\n');
          return { event: event!.slice(7), data: JSON.parse(data!.slice(6)) };
        });
      assert.deepEqual(
        events.map((event) => event.event),
        ['run:started', 'run:output', 'run:finished'],
      );
      assert.deepEqual(events[0]!.data, {
        job: 'out',
        runId: events[0]!.data.runId,
        pid: 1000,
        trigger: 'manual',
        attempt: 0,
        scheduledAt: null,
        startedAt: '2026-01-01T00:00:00+00:00',
      });
      assert.deepEqual(events[1]!.data, {
        job: 'out',
        runId: events[0]!.data.runId,
        stream: 'stdout',
        line: 'hello',
      });
      assert.equal(events[2]!.data.record.outcome, 'failure');
      assert.equal(events[2]!.data.record.exit_code, 3);
      assert.equal(events[2]!.data.disposition, 'failure');
      stream.close();
    }));

  void it('narrows the feed to one job with ?job=', () =>
    withStreams(async (api, base) => {
      const stream = await openStream(`${base}/events?job=other`);
      await api.scheduler.startJob('out');
      api.runner.last('out').succeed();
      await api.scheduler.startJob('other');
      await stream.waitFor('"job":"other"');
      assert.doesNotMatch(stream.text(), /"job":"out"/);
      stream.close();
    }));
});

/** A raw client that sends a request and then reads nothing until told to. */
async function stalledClient(base: string, path: string): Promise<Socket> {
  const { port } = new URL(base);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  socket.pause();
  return socket;
}

void describe('slow consumers', () => {
  const limits: StreamLimits = {
    maxQueuedBytes: 64 * 1024,
    maxStreams: 256,
    maxStreamsPerClient: 16,
    closeGraceMs: 2_000,
    keepAliveMs: 15_000,
  };
  const chunk = 'x'.repeat(1024);

  void it('are cut off with an end marker once their queue passes the bound', () =>
    withStreams(async (api, base) => {
      await api.scheduler.startJob('out');
      const run = api.runner.last('out');
      const socket = await stalledClient(base, '/jobs/out/logs');
      const source = api.outputs.source('out')!;
      for (let tries = 0; source.listenerCount === 0 && tries < 100; tries++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.equal(source.listenerCount, 1);
      // Far more than the kernel's socket buffers and the bound together.
      let emitted = 0;
      for (let index = 0; index < 40_000 && source.listenerCount > 0; index++) {
        run.emitOutput('stdout', `${index} ${chunk}\n`);
        emitted++;
        if (index % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      assert.equal(source.listenerCount, 0, 'the slow client was unsubscribed');
      // Output goes on for everyone else and costs this client nothing more.
      for (let index = 0; index < 1000; index++) run.emitOutput('stdout', `late ${index}\n`);
      socket.resume();
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (data: string) => (received += data));
      await once(socket, 'close');
      assert.match(received, /^HTTP\/1\.1 200 OK/);
      assert.ok(
        received.includes('event: end\r\n') === false &&
          received.includes('event: end\ndata: {"reason": "slow-consumer"}\n\n'),
        'the stream ends with the slow-consumer marker',
      );
      assert.doesNotMatch(received, /late \d/);
      // Every line before the one that overflowed was delivered; that one and all later ones
      // were dropped for this client.
      assert.equal(received.match(/event: line\n/g)?.length, emitted - 1);
      run.succeed();
    }, limits));

  void it('are disconnected when they do not even take the marker', () =>
    withStreams(async (api, base) => {
      await api.scheduler.startJob('out');
      const run = api.runner.last('out');
      const socket = await stalledClient(base, '/events');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closed = once(socket, 'close');
      for (let index = 0; index < 20_000; index++) {
        run.emitOutput('stdout', `${index} ${chunk}\n`);
        if (index % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await api.clock.advance(limits.closeGraceMs);
      socket.resume();
      await closed;
      run.succeed();
    }, limits));
});

void describe('how many streams may be open', () => {
  const limits: StreamLimits = {
    maxQueuedBytes: 1024 * 1024,
    maxStreams: 3,
    maxStreamsPerClient: 2,
    closeGraceMs: 5_000,
    keepAliveMs: 15_000,
  };

  void it('a client with too many open streams gets a 429, the daemon past its total a 503', () =>
    withStreams(async (_api, base) => {
      const events = `${base}/events`;
      const first = await openStream(events, {}, '127.0.0.1');
      const second = await openStream(events, {}, '127.0.0.1');
      const third = await openStream(events, {}, '127.0.0.1');
      assert.deepEqual([first.status, second.status, third.status], [200, 200, 429]);
      assert.deepEqual(JSON.parse(await third.ended()), {
        error: 'Too Many Requests',
        message: 'too many open event streams from this client',
      });
      // Another source address is another client: it gets the last slot, then none is left.
      const other = await openStream(events, {}, '127.0.0.2');
      assert.equal(other.status, 200);
      const beyond = await openStream(events, {}, '127.0.0.3');
      assert.equal(beyond.status, 503);
      assert.match(await beyond.ended(), /too many open event streams/);
      // A closed stream gives its slot back.
      first.close();
      await waitForSlot(events, '127.0.0.3');
      second.close();
      other.close();
    }, limits));
});

/** Opens (and closes) streams until one is granted: the server has seen a stream close. */
async function waitForSlot(url: string, from: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    const probe = await openStream(url, {}, from);
    probe.close();
    if (probe.status === 200) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail('the slot of a closed stream never came back');
}
