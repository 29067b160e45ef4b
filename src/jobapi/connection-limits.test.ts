// The job API's sockets (docs/http-api.md "Connection limits"): past the server's cap a socket
// is closed as it is accepted, so idle sockets cannot take the daemon's descriptors; a socket that
// does not get its request headers in by the deadline is closed, one whose request is in is not;
// a request without a run's token does not keep its socket. Real sockets on 127.0.0.1; the limits
// are injected small so nothing waits for the real 10 s.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import type { ConnectionLimits } from '../common/index.js';
import { closedCount, openSocket, rawStatus, type ClientSocket } from '../common/testing.js';
import { within } from '../state/testing.js';
import { withFixture, type TestRun } from './job-api-fixture.test.js';

const portOf = (url: string): number => Number(new URL(url).port);

const runRequest = (run: TestRun): string =>
  `GET /v1/run HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${run.token}\r\n\r\n`;

/** GET /v1/run on a fresh connection; the status, or 0 when the server closed it unanswered. */
async function freshStatus(url: string, run: TestRun): Promise<number> {
  const request = httpRequest(`${url}/v1/run`, {
    headers: { authorization: `Bearer ${run.token}` },
    agent: false,
  });
  request.end();
  try {
    const [response] = (await once(request, 'response')) as [IncomingMessage];
    response.resume();
    return response.statusCode ?? 0;
  } catch {
    return 0;
  }
}

const CAPPED: ConnectionLimits = {
  maxConnections: 4,
  maxConnectionsPerClient: null,
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 60_000,
};

void describe('job API connection limits', () => {
  void test('past maxConnections a socket is closed as it is accepted; the held ones are served, and a freed place serves a fresh request', () =>
    withFixture(
      'memory',
      async ({ api, startRun, logger }) => {
        const run = startRun();
        const port = portOf(api.url);
        const sockets: ClientSocket[] = [];
        for (let index = 0; index < 6; index++) sockets.push(await openSocket(port));
        await within(closedCount(sockets, 2), 5_000, 'the two sockets past the cap to be closed');
        const held = sockets.filter((client) => !client.isClosed());
        assert.equal(held.length, 4);
        // The held sockets are real places: each is served.
        for (const client of held) assert.equal(await rawStatus(client, runRequest(run)), 200);
        // The server is full: a fresh connection is closed unanswered, and that is logged once.
        assert.equal(await within(freshStatus(api.url, run), 5_000, 'a refusal'), 0);
        assert.equal(await within(freshStatus(api.url, run), 5_000, 'a refusal'), 0);
        const warnings = logger.lines.filter((line) =>
          line.message.includes('refused a connection'),
        );
        assert.deepEqual(
          warnings.map((line) => line.message),
          [
            'job API: refused a connection: 4 are open, the most one server keeps. Later refusals are not logged',
          ],
        );
        // A place freed by a client is a place for the next one.
        held[0]!.socket.destroy();
        let status = 0;
        for (let tries = 0; tries < 200 && status !== 200; tries++) {
          status = await within(freshStatus(api.url, run), 5_000, 'a fresh request');
        }
        assert.equal(status, 200);
        for (const client of held) client.socket.destroy();
      },
      { connectionLimits: CAPPED },
    ));

  void test('a socket without its request headers by the deadline is closed; one whose request is in is not', () =>
    withFixture(
      'memory',
      async ({ api, startRun }) => {
        const run = startRun();
        const port = portOf(api.url);
        // A request whose headers are in and whose body is still coming (an upload).
        const upload = httpRequest(`${api.url}/v1/artifact/put?name=slow`, {
          method: 'POST',
          headers: { authorization: `Bearer ${run.token}`, 'content-length': '4' },
          agent: false,
        });
        upload.on('error', () => undefined);
        upload.flushHeaders();
        upload.write('ab');
        const silent = await openSocket(port);
        const partial = await openSocket(port);
        partial.socket.write('GET /v1/run HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        await within(silent.closed, 5_000, 'the silent socket to be closed');
        await within(partial.closed, 5_000, 'the partial-headers socket to be closed');
        // Long past the deadline, the upload finishes and is answered.
        upload.end('cd');
        const [response] = (await within(once(upload, 'response'), 5_000, 'the upload')) as [
          IncomingMessage,
        ];
        response.resume();
        assert.equal(response.statusCode, 200);
        assert.equal(await freshStatus(api.url, run), 200);
      },
      {
        connectionLimits: {
          maxConnections: 1024,
          maxConnectionsPerClient: null,
          headersTimeoutMs: 200,
          requestTimeoutMs: 60_000,
        },
      },
    ));

  void test('a request without a valid token gets its 401 and the socket closed', () =>
    withFixture('memory', async ({ api, startRun }) => {
      const run = startRun();
      const client = await openSocket(portOf(api.url));
      const status = await rawStatus(
        client,
        'GET /v1/run HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\n\r\n',
      );
      assert.equal(status, 401);
      await within(client.closed, 5_000, 'the server to close the socket');
      assert.match(client.received(), /\r\nconnection: close\r\n/i);
      // A run's request keeps its socket for the next one.
      const kept = await openSocket(portOf(api.url));
      assert.equal(await rawStatus(kept, runRequest(run)), 200);
      assert.equal(kept.isClosed(), false);
      kept.socket.destroy();
    }));
});
