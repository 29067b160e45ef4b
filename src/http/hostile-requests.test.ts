// Hostile input over a real socket: oversized bodies, malformed HTTP, traversal and NUL/non-UTF-8
// job names, unknown methods, bad tokens, bogus Accept, very long URLs and headers. Each gets a
// clean 4xx (never a 5xx, a stack trace or a dropped connection without an answer), and the
// scheduler keeps firing throughout.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { connect } from 'node:net';
import { makeJob } from '../config/testing.js';
import { createApiFixture, listenOnLoopback } from './http-fixture.test.js';

const TOKEN = 'hostile-test-token';
const AUTH = `Authorization: Bearer ${TOKEN}\r\n`;

interface RawResponse {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/**
 * Send raw bytes, then read until the server closes the connection or has sent one complete
 * response (Content-Length), at most 5 s. A body larger than the server reads is streamed in
 * chunks and stops when the server answers.
 */
function rawRequest(port: number, head: string | Buffer, bodyBytes = 0): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = received.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const statusLine = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!statusLine) {
        reject(new Error(`no HTTP response; got ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      resolve({
        status: Number(statusLine[1]),
        head: split === -1 ? text : text.slice(0, split),
        body: split === -1 ? '' : text.slice(split + 4),
      });
    };
    const timer = setTimeout(finish, 5_000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split));
      if (split !== -1 && length && received.length >= split + 4 + Number(length[1])) finish();
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(head);
      let sent = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const pump = (): void => {
        while (!done && sent < bodyBytes) {
          sent += chunk.length;
          if (!socket.write(chunk)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
}

interface HostileCase {
  readonly name: string;
  readonly head: string | Buffer;
  readonly bodyBytes?: number;
  /** Expected status, or a range check. */
  readonly status: number | ((status: number) => boolean);
}

const get = (path: string, extra = ''): string =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${AUTH}${extra}Connection: close\r\n\r\n`;
const post = (path: string, extra = '', body = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${AUTH}${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
const clientError = (status: number): boolean => status >= 400 && status < 500;

const CASES: readonly HostileCase[] = [
  {
    name: 'a 10 MB body',
    head: `POST /jobs/tick/start HTTP/1.1\r\nHost: localhost\r\n${AUTH}Content-Type: application/octet-stream\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`,
    bodyBytes: 10 * 1024 * 1024,
    status: 413,
  },
  {
    name: 'a 1.3 MB chunked body',
    head: `POST /jobs/tick/start HTTP/1.1\r\nHost: localhost\r\n${AUTH}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n${('10000\r\n' + 'A'.repeat(0x10000) + '\r\n').repeat(20)}`,
    bodyBytes: 0,
    status: (status) => status === 413 || status === 400,
  },
  {
    name: 'bad JSON to an unknown job',
    head: post('/jobs/nope/start', 'Content-Type: application/json\r\n', '{"a":'),
    status: 404,
  },
  {
    name: 'a prototype-polluting JSON body',
    head: post('/jobs/nope/cancel', 'Content-Type: application/json\r\n', '{"__proto__":{"x":1}}'),
    status: 404,
  },
  { name: 'dot-segment traversal', head: get('/jobs/../../etc/passwd'), status: 404 },
  {
    name: 'encoded traversal in a job name',
    head: get('/jobs/..%2F..%2Fetc%2Fpasswd/runs'),
    status: 404,
  },
  { name: 'double-encoded traversal', head: get('/jobs/%252e%252e/runs'), status: 404 },
  { name: 'an encoded NUL in a job name', head: get('/jobs/tick%00/runs'), status: 404 },
  { name: 'a raw NUL in the request line', head: get('/jobs/ti\u0000ck/runs'), status: 400 },
  { name: 'non-UTF-8 percent-encoding', head: get('/jobs/%FF%FE/runs'), status: 400 },
  {
    name: 'raw non-UTF-8 bytes in the path',
    head: Buffer.concat([
      Buffer.from('GET /jobs/'),
      Buffer.from([0xff, 0xc3, 0x28]),
      Buffer.from(`/runs HTTP/1.1\r\nHost: localhost\r\n${AUTH}Connection: close\r\n\r\n`),
    ]),
    status: clientError,
  },
  {
    name: 'CR/LF injection in a job name',
    head: post('/jobs/a%0d%0aSet-Cookie:%20x/start'),
    status: 404,
  },
  {
    name: 'an unknown method',
    head: `FOO /status HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    status: 400,
  },
  {
    name: 'a lower-case method',
    head: `get /status HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    status: 400,
  },
  {
    name: 'PATCH on a GET route',
    head: `PATCH /status HTTP/1.1\r\nHost: localhost\r\n${AUTH}Content-Length: 0\r\n\r\n`,
    status: 405,
  },
  {
    name: 'DELETE on a job',
    head: `DELETE /jobs/tick HTTP/1.1\r\nHost: localhost\r\n${AUTH}\r\n`,
    status: 405,
  },
  {
    name: 'CONNECT',
    head: `CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n`,
    status: 405,
  },
  {
    name: 'no token',
    head: `GET /jobs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    status: 401,
  },
  {
    name: 'a 10 KB wrong token',
    head: `GET /jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${'x'.repeat(10_000)}\r\nConnection: close\r\n\r\n`,
    status: 401,
  },
  {
    name: 'a token with the wrong scheme',
    head: `GET /jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic ${TOKEN}\r\nConnection: close\r\n\r\n`,
    status: 401,
  },
  {
    name: 'a token with a control character',
    head: `GET /jobs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\u0001\r\nConnection: close\r\n\r\n`,
    status: clientError,
  },
  {
    name: 'a bogus Accept on an unknown job',
    head: get('/jobs/nope', 'Accept: */*;q=,,;;\u00ff\r\n'),
    status: 404,
  },
  { name: 'a 100 KB URL', head: get(`/jobs/${'a'.repeat(100_000)}`), status: 431 },
  { name: 'a 5,000-character job name', head: get(`/jobs/${'a'.repeat(5_000)}/runs`), status: 400 },
  {
    name: 'a 64 KB header',
    head: get('/status', `X-Big: ${'b'.repeat(64 * 1024)}\r\n`),
    status: 431,
  },
  { name: 'a request without Host', head: `GET /status HTTP/1.1\r\n${AUTH}\r\n`, status: 400 },
  {
    name: 'a DNS-rebinding Host',
    head: `GET /jobs HTTP/1.1\r\nHost: attacker.example\r\n${AUTH}Connection: close\r\n\r\n`,
    status: 403,
  },
  {
    name: 'a non-numeric Content-Length',
    head: `POST /jobs/tick/start HTTP/1.1\r\nHost: localhost\r\n${AUTH}Content-Length: abc\r\n\r\n`,
    status: 400,
  },
  {
    name: 'both Content-Length and Transfer-Encoding',
    head: `POST /jobs/tick/start HTTP/1.1\r\nHost: localhost\r\n${AUTH}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    status: 400,
  },
  { name: 'garbage instead of HTTP', head: 'GARBAGE\r\n\r\n', status: 400 },
  { name: 'an SSE stream of an unknown job', head: get('/jobs/nope/logs'), status: 404 },
];

void test(
  'hostile requests get clean 4xx answers and the scheduler keeps firing',
  { timeout: 120_000 },
  async () => {
    const api = await createApiFixture([makeJob({ name: 'tick', schedule: '* * * * *' })], {
      web: { authToken: TOKEN },
    });
    try {
      const base = await listenOnLoopback(api.app);
      const port = Number(new URL(base).port);
      assert.ok(CASES.length >= 20);
      const failures: string[] = [];
      for (const hostile of CASES) {
        let response: RawResponse;
        try {
          response = await rawRequest(port, hostile.head, hostile.bodyBytes ?? 0);
        } catch (error) {
          failures.push(`${hostile.name}: ${(error as Error).message}`);
          continue;
        }
        const ok =
          typeof hostile.status === 'number'
            ? response.status === hostile.status
            : hostile.status(response.status);
        if (!ok)
          failures.push(`${hostile.name}: got ${response.status} ${response.body.slice(0, 200)}`);
        if (/\bat .*\(.*:\d+:\d+\)|node:internal/.test(response.body)) {
          failures.push(`${hostile.name}: the body shows a stack trace`);
        }
        if (/set-cookie/i.test(response.head))
          failures.push(`${hostile.name}: a header was injected`);
        // Between hostile requests the daemon still schedules: the next minute's fire happens.
        const before = api.runner.runsOf('tick').length;
        await api.clock.advance(60_000);
        if (api.runner.runsOf('tick').length !== before + 1) {
          failures.push(`${hostile.name}: the scheduler did not fire afterwards`);
        }
      }
      assert.deepEqual(failures, []);
      const status = await rawRequest(port, get('/status'));
      assert.equal(status.status, 200);
      assert.match(status.body, /^tick: running \(pid: /);
    } finally {
      await api.close();
    }
  },
);
