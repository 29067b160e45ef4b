// statsd datagrams as a statsd server receives them: a real UDP socket on 127.0.0.1, a real
// scheduler on a FakeClock with a FakeRunner.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { silentLogger, type Logger } from '../logging/index.js';
import type { ResolvedJob } from '../config/index.js';
import { createScheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { createStatsdPublisher, formatStopDatagram } from './statsd.js';
import { sendUdpDatagram, type DatagramSend } from './udp-send.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

class StatsdServer {
  readonly received: string[] = [];
  #waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  constructor(readonly socket: Socket) {
    socket.on('message', (message) => {
      this.received.push(message.toString('utf8'));
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.predicate()) return true;
        waiter.resolve();
        return false;
      });
    });
  }

  get port(): number {
    return this.socket.address().port;
  }

  /** Resolve once `predicate` holds (fails after 5 s of real time). */
  #until(predicate: () => boolean, what: string): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`statsd server: ${what}`)), 5000);
      this.#waiters.push({
        predicate,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Resolve once `count` datagrams arrived in total. */
  waitFor(count: number): Promise<void> {
    return this.#until(() => this.received.length >= count, `fewer than ${count} datagrams`);
  }

  /**
   * Every datagram whose send completed before this call has been read: loopback delivers at
   * send time into one receive queue, so they are all read before our own sentinel.
   */
  async drain(): Promise<void> {
    const sentinel = `sentinel-${this.received.length}\n`;
    await sendUdpDatagram({ host: '127.0.0.1', port: this.port, prefix: '' }, sentinel, () => {});
    await this.#until(() => this.received.includes(sentinel), 'sentinel lost');
    this.received.splice(this.received.indexOf(sentinel), 1);
  }
}

function statsdJob(name: string, port: number, overrides: Parameters<typeof makeJob>[0] = {}) {
  return makeJob({
    name,
    statsd: { host: '127.0.0.1', port, prefix: `acme.${name}` },
    ...overrides,
  });
}

function setUp(jobs: readonly ResolvedJob[], logger: Logger = silentLogger(), send?: DatagramSend) {
  const clock = new FakeClock(T0);
  const runner = new FakeRunner({ clock });
  const scheduler = createScheduler({ clock, logger: silentLogger(), runner }, makeConfig(jobs));
  const statsd = createStatsdPublisher({ clock, logger, ...(send ? { send } : {}) });
  const unsubscribe = statsd.subscribe(scheduler);
  return {
    clock,
    runner,
    scheduler,
    statsd,
    async stop(): Promise<void> {
      let settled = false;
      const done = scheduler.shutdown(0).then(() => (settled = true));
      for (let step = 0; step < 1000 && !settled; step++) await clock.advance(1000);
      await done;
      await statsd.close();
      unsubscribe();
    },
  };
}

describe('statsd datagrams', () => {
  let server: StatsdServer;
  before(async () => {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    server = new StatsdServer(socket);
  });
  after(() => server.socket.close());

  test('a start datagram at spawn, one stop datagram with success and duration at the end', async () => {
    server.received.length = 0;
    const f = setUp([statsdJob('report', server.port)]);
    f.runner.script('report', { exitCode: 0, durationMs: 1234 });
    f.scheduler.start();
    await f.clock.advance(MINUTE); // spawned at T0+60s
    await server.waitFor(1);
    assert.deepEqual(server.received, ['acme.report.start:1|g\n']);
    await f.clock.advance(2000);
    await server.waitFor(2);
    assert.deepEqual(server.received, [
      'acme.report.start:1|g\n',
      'acme.report.stop:1|g\nacme.report.success:1|g\nacme.report.duration:1234|ms|@0.1\n',
    ]);
    await f.stop();
  });

  test('failures, timeouts and output-based failures send success:0; launch failures send nothing', async () => {
    server.received.length = 0;
    const f = setUp([
      statsdJob('exit', server.port),
      statsdJob('timeout', server.port, { executionTimeoutMs: 3000 }),
      statsdJob('noisy', server.port, { captureStderr: true }),
      statsdJob('broken', server.port),
      makeJob({ name: 'quiet' }),
    ]);
    f.runner.script('exit', { exitCode: 3, durationMs: 500 });
    f.runner.script('timeout', { timedOut: true, durationMs: 3000 });
    // Exit 0 but stderr output with failsWhen.producesStderr: a failed run. The reference still
    // says success:1 here (it decides before reading the output); we report the real verdict.
    f.runner.script('noisy', {
      exitCode: 0,
      stderr: 'warning: disk almost full\n',
      durationMs: 20,
    });
    f.runner.script('broken', { spawnFails: true });
    f.runner.script('quiet', { exitCode: 0, durationMs: 10 });
    f.scheduler.start();
    await f.clock.advance(MINUTE + 5000);
    await f.statsd.close();
    await server.drain();
    const stops = server.received.filter((datagram) => datagram.includes('.stop:'));
    assert.deepEqual(
      new Set(stops),
      new Set([
        'acme.exit.stop:1|g\nacme.exit.success:0|g\nacme.exit.duration:500|ms|@0.1\n',
        'acme.timeout.stop:1|g\nacme.timeout.success:0|g\nacme.timeout.duration:3000|ms|@0.1\n',
        'acme.noisy.stop:1|g\nacme.noisy.success:0|g\nacme.noisy.duration:20|ms|@0.1\n',
      ]),
    );
    assert.equal(server.received.length, 6);
    assert.ok(!server.received.some((datagram) => datagram.includes('broken')));
    assert.ok(!server.received.some((datagram) => datagram.includes('quiet')));
    await f.stop();
  });

  test('a send failure is logged as a warning and never touches the job', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      ...silentLogger(),
      warn: (first: unknown, second?: unknown) =>
        warnings.push(typeof first === 'string' ? first : String(second)),
    };
    const failingSend: DatagramSend = () =>
      Promise.reject(new Error('getaddrinfo ENOTFOUND nowhere'));
    const f = setUp([statsdJob('lost', server.port)], logger, failingSend);
    f.runner.script('lost', { exitCode: 0, durationMs: 100 });
    f.scheduler.start();
    await f.clock.advance(MINUTE + 1000);
    await f.statsd.close();
    assert.deepEqual(warnings, [
      'Job lost: failed to send statsd job_started metric',
      'Job lost: failed to send statsd job_stopped metric',
    ]);
    assert.equal(f.scheduler.getRuns('lost')[0]?.outcome, 'success');
    await f.stop();
  });

  test('a send error rejects the send', async () => {
    // No DNS in tests: an out-of-range port fails inside socket.send.
    await assert.rejects(
      sendUdpDatagram({ host: '127.0.0.1', port: 70_000, prefix: 'x' }, 'x.start:1|g\n', () => {}),
      /ERR_SOCKET_BAD_PORT|Port/,
    );
  });
});

describe('the stop datagram', () => {
  test('carries cpu and max_rss lines when resource monitoring produced usage', () => {
    assert.equal(
      formatStopDatagram('p', true, 1499.6, {
        cpuUserSeconds: 1.2,
        cpuSystemSeconds: 0.3456,
        cpuTotalSeconds: 1.5456,
        maxRssBytes: 52428800,
        samples: 4,
      }),
      'p.stop:1|g\np.success:1|g\np.duration:1500|ms|@0.1\np.cpu:1546|ms|@0.1\np.max_rss:52428800|g\n',
    );
  });
});
