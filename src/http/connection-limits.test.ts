// The control API's sockets (docs/http-api.md "Connection limits"): a cap per client address
// (one address filling its share leaves the others served), a cap per listener, and a deadline
// for a socket's first request headers that event streams, open long past it, do not feel.
// Real sockets on 127.0.0.1 and 127.0.0.2; the limits are injected small.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import type { ConnectionLimits } from '../common/index.js';
import { closedCount, openSocket, type ClientSocket } from '../common/testing.js';
import { recordingLogger } from '../logging/testing.js';
import { makeJob } from '../config/testing.js';
import { within } from '../state/testing.js';
import {
  createApiFixture,
  listenOnLoopback,
  openStream,
  type ApiFixture,
} from './http-fixture.test.js';

const NEVER = '0 0 1 1 *';

/** The sockets a test opened, destroyed before the app closes (it waits for open ones). */
const opened: ClientSocket[] = [];

async function withListener(
  limits: ConnectionLimits,
  run: (api: ApiFixture, port: number, warnings: () => string[]) => Promise<void>,
): Promise<void> {
  const logger = recordingLogger();
  const api = await createApiFixture([makeJob({ name: 'out', schedule: NEVER })], {
    connectionLimits: limits,
    logger,
  });
  try {
    const base = await listenOnLoopback(api.app);
    await run(api, Number(new URL(base).port), () =>
      logger.lines
        .filter((line) => line.message.includes('refused a connection'))
        .map((line) => line.message),
    );
  } finally {
    for (const client of opened.splice(0)) client.socket.destroy();
    await api.close();
  }
}

async function open(port: number, from?: string): Promise<ClientSocket> {
  const client = await openSocket(port, from);
  opened.push(client);
  return client;
}

/** GET /version on a fresh connection from `localAddress`; 0 when closed unanswered. */
async function versionStatus(port: number, localAddress: string): Promise<number> {
  const outgoing = request({
    host: '127.0.0.1',
    port,
    path: '/version',
    localAddress,
    agent: false,
  });
  outgoing.end();
  // A refused socket makes the request fail (reset or closed unanswered): that is the 0; a
  // server that neither answers nor closes fails the test after 5 s.
  const status = once(outgoing, 'response').then(
    ([response]) => {
      (response as IncomingMessage).resume();
      return (response as IncomingMessage).statusCode ?? 0;
    },
    () => 0,
  );
  return within(status, 5_000, 'an answer or a close');
}

async function openMany(port: number, count: number, from: string): Promise<ClientSocket[]> {
  const sockets: ClientSocket[] = [];
  for (let index = 0; index < count; index++) sockets.push(await open(port, from));
  return sockets;
}

void describe('control API connection limits', () => {
  void it('one client address past its cap is refused while another address is served', () =>
    withListener(
      {
        maxConnections: 16,
        maxConnectionsPerClient: 3,
        headersTimeoutMs: 30_000,
        requestTimeoutMs: 30_000,
      },
      async (_api, port, warnings) => {
        const idle = await openMany(port, 5, '127.0.0.1');
        await within(closedCount(idle, 2), 5_000, 'the sockets past the client cap to be closed');
        assert.equal(idle.filter((client) => !client.isClosed()).length, 3);
        assert.equal(await versionStatus(port, '127.0.0.1'), 0, 'the full client is refused');
        assert.equal(await versionStatus(port, '127.0.0.2'), 200, 'another client is served');
        assert.deepEqual(warnings(), [
          'web http://127.0.0.1:0: refused a connection from 127.0.0.1: it has 3 open, the most one client address may. Later refusals are not logged',
        ]);
        // A place the client frees is its own again.
        idle.find((client) => !client.isClosed())!.socket.destroy();
        let status = 0;
        for (let tries = 0; tries < 200 && status !== 200; tries++) {
          status = await versionStatus(port, '127.0.0.1');
        }
        assert.equal(status, 200);
      },
    ));

  void it('a listener past its cap closes a new socket as it is accepted, whatever its address', () =>
    withListener(
      {
        maxConnections: 4,
        maxConnectionsPerClient: 3,
        headersTimeoutMs: 30_000,
        requestTimeoutMs: 30_000,
      },
      async (_api, port, warnings) => {
        const idle = [
          ...(await openMany(port, 2, '127.0.0.1')),
          ...(await openMany(port, 2, '127.0.0.2')),
        ];
        const more = await openMany(port, 2, '127.0.0.3');
        await within(closedCount(more, 2), 5_000, 'the sockets past the cap to be closed');
        assert.equal(idle.filter((client) => client.isClosed()).length, 0);
        assert.deepEqual(warnings(), [
          'web http://127.0.0.1:0: refused a connection: 4 are open, the most one server keeps. Later refusals are not logged',
        ]);
      },
    ));

  void it('a socket without request headers by the deadline is closed; an event stream outlives it', () =>
    withListener(
      {
        maxConnections: 16,
        maxConnectionsPerClient: 8,
        headersTimeoutMs: 200,
        requestTimeoutMs: 30_000,
      },
      async (api, port) => {
        const stream = await openStream(`http://127.0.0.1:${port}/events`);
        const silent = await open(port);
        const partial = await open(port);
        partial.socket.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        await within(silent.closed, 5_000, 'the silent socket to be closed');
        await within(partial.closed, 5_000, 'the partial-headers socket to be closed');
        // Long past the deadline, the stream still delivers.
        await api.scheduler.startJob('out');
        await stream.waitFor('event: run:started');
        stream.close();
      },
    ));
});
