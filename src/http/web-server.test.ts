// The web controller over real sockets (docs/http-api.md "The web section"): TCP and unix listeners
// side by side, skipped URLs and bind failures as warnings, socketMode, and reconciliation on
// reload.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect as connectSocket, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { once } from 'node:events';
import { FakeClock } from '../common/index.js';
import { recordingLogger } from '../logging/testing.js';
import type { WebListener } from '../config/index.js';
import { createScheduler } from '../scheduler/index.js';
import { FakeRunner } from '../scheduler/testing.js';
import { makeConfig, makeJob } from '../config/testing.js';
import { makeWeb } from './http-fixture.test.js';
import { listenOnUnixSocket, WebServer } from './web-server.js';

function setup() {
  const clock = new FakeClock();
  const runner = new FakeRunner({ clock });
  const config = makeConfig([makeJob({ name: 'a', schedule: '0 0 1 1 *' })]);
  const scheduler = createScheduler({ clock, logger: recordingLogger(), runner }, config);
  const logger = recordingLogger();
  const web = new WebServer({
    view: scheduler,
    control: scheduler,
    clock,
    logger,
    jobSet: () => ({ jobSetId: config.jobSetId, jobs: 1 }),
    renderMetrics: null,
    version: '9.9.9',
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'yacron2-web-'));
  return {
    scheduler,
    web,
    logs: logger.lines,
    dir,
    cleanup: async (): Promise<void> => {
      await web.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const tcp = (port = 0, host = '127.0.0.1'): WebListener => ({
  kind: 'tcp',
  url: `http://${host}:${port}`,
  host,
  port,
});
const unix = (socketPath: string): WebListener => ({
  kind: 'unix',
  url: `unix://${socketPath}`,
  path: socketPath,
});

/** GET over TCP (`http://...`) or a unix socket (`unix://...`); resolves with status and body. */
async function get(address: string, urlPath: string): Promise<{ status: number; body: string }> {
  const options = address.startsWith('unix://')
    ? { socketPath: address.slice('unix://'.length), path: urlPath }
    : { host: new URL(address).hostname, port: Number(new URL(address).port), path: urlPath };
  const req = request({ ...options, method: 'GET' });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  response.setEncoding('utf8');
  for await (const chunk of response) body += chunk as string;
  return { status: response.statusCode ?? 0, body };
}

void describe('WebServer', () => {
  void it('serves on a TCP port and a unix socket at once, with socketMode applied', async () => {
    const { web, logs, dir, cleanup } = setup();
    try {
      const socketPath = path.join(dir, 'api.sock');
      await web.apply(makeWeb({ listen: [tcp(), unix(socketPath)], socketMode: '0600' }));
      const [http, sock] = web.addresses;
      assert.match(http ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(sock, `unix://${socketPath}`);
      assert.deepEqual(await get(http!, '/version'), { status: 200, body: '9.9.9' });
      assert.deepEqual(await get(sock, '/version'), { status: 200, body: '9.9.9' });
      assert.equal(statSync(socketPath).mode & 0o777, 0o600);
      assert.deepEqual(
        logs.map((line) => `${line.level} ${line.message}`),
        [
          `info web: started listening on ${http}`,
          `info web: dashboard at ${http}/`,
          `warn web: ${http} has no authToken: anything that can connect to it can start and cancel jobs (set web.authToken)`,
          `info web: started listening on ${sock}`,
        ],
      );
    } finally {
      await cleanup();
    }
  });

  void it('a TCP listener with an authToken starts without the no-token warning', async () => {
    const { web, logs, cleanup } = setup();
    try {
      await web.apply(makeWeb({ listen: [tcp()], authToken: 'tok' }));
      assert.deepEqual(
        logs.map((line) => line.level),
        ['info', 'info'],
      );
    } finally {
      await cleanup();
    }
  });

  void it('skips unusable URLs and failed binds with warnings; the rest still serve', async () => {
    const { web, logs, dir, cleanup } = setup();
    const blocker = createNetServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const taken = (blocker.address() as { port: number }).port;
    try {
      await web.apply(
        makeWeb({
          listen: [
            { kind: 'ignored', url: 'https://127.0.0.1:1', reason: "scheme 'https' not supported" },
            tcp(taken),
            unix(path.join(dir, 'no-such-dir', 'api.sock')),
            tcp(),
          ],
          socketMode: 'rw-rw----',
        }),
      );
      assert.equal(web.addresses.length, 1);
      const warnings = logs.filter((line) => line.level === 'warn').map((line) => line.message);
      assert.equal(
        warnings[0],
        "Ignoring web listen url https://127.0.0.1:1: scheme 'https' not supported",
      );
      assert.match(
        warnings[1] ?? '',
        new RegExp(`^web: could not listen on http://127\\.0\\.0\\.1:${taken}: .*EADDRINUSE`),
      );
      assert.match(
        warnings[2] ?? '',
        /^web: could not listen on unix:\/\/.*no-such-dir\/api\.sock: /,
      );
      assert.equal((await get(web.addresses[0]!, '/version')).status, 200);
    } finally {
      blocker.close();
      await cleanup();
    }
  });

  void it('warns about a bad socketMode without failing the listener', async () => {
    const { web, logs, dir, cleanup } = setup();
    try {
      const socketPath = path.join(dir, 'api.sock');
      await web.apply(makeWeb({ listen: [unix(socketPath)], socketMode: '9999' }));
      assert.equal(web.addresses.length, 1);
      assert.ok(
        logs.some((line) =>
          line.message.startsWith(`web: could not set socketMode 9999 on ${socketPath}: `),
        ),
      );
    } finally {
      await cleanup();
    }
  });

  void it('replaces a stale socket file but never another kind of file', async () => {
    const { web, dir, cleanup } = setup();
    try {
      const stale = path.join(dir, 'stale.sock');
      const old = createServer();
      old.listen(stale);
      await once(old, 'listening');
      // Simulate a crash: the socket file stays behind without a listener.
      (old as unknown as { _handle: { close(): void } | null })._handle?.close();
      const regular = path.join(dir, 'file.sock');
      writeFileSync(regular, 'keep me');
      await web.apply(makeWeb({ listen: [unix(stale), unix(regular)] }));
      assert.deepEqual(web.addresses, [`unix://${stale}`]);
      assert.equal((await get(`unix://${stale}`, '/version')).status, 200);
    } finally {
      await cleanup();
    }
  });

  void it("never unlinks a live peer's socket: the bind fails with a warning and the peer keeps serving", async () => {
    const { web, logs, dir, cleanup } = setup();
    const peer = createNetServer((connection) => {
      connection.on('error', () => undefined); // the daemon's liveness probe hangs up at once
      connection.end('peer');
    });
    try {
      const socketPath = path.join(dir, 'api.sock');
      peer.listen(socketPath);
      await once(peer, 'listening');
      const inode = statSync(socketPath).ino;
      await web.apply(makeWeb({ listen: [unix(socketPath)] }));
      assert.deepEqual(web.addresses, []);
      assert.match(
        logs.find((line) => line.level === 'warn')?.message ?? '',
        new RegExp(`^web: could not listen on unix://${socketPath}: .*EADDRINUSE`),
      );
      assert.equal(statSync(socketPath).ino, inode, 'the peer socket file is untouched');
      const probe = connectSocket(socketPath);
      probe.setEncoding('utf8');
      const [greeting] = (await once(probe, 'data')) as [string];
      assert.equal(greeting, 'peer');
      probe.destroy();
    } finally {
      peer.close();
      await cleanup();
    }
  });

  void it('a unix socket never exists with a wider mode than socketMode, even under umask 0', async () => {
    const { dir, cleanup } = setup();
    const previous = process.umask(0);
    const plain = createServer();
    const guarded = createServer();
    try {
      // Without the guard, a socket is created with 0777 & ~umask and chmod-ed only later.
      plain.listen(path.join(dir, 'plain.sock'));
      assert.equal(statSync(path.join(dir, 'plain.sock')).mode & 0o777, 0o777);
      const listening = listenOnUnixSocket(guarded, path.join(dir, 'guarded.sock'), 0o660);
      // The bind is synchronous: the file exists, with its final group/other bits, before any
      // chmod could run.
      assert.equal(statSync(path.join(dir, 'guarded.sock')).mode & 0o077, 0o060);
      await listening;
      assert.equal(process.umask(), 0, 'the umask is restored');
    } finally {
      process.umask(previous);
      plain.close();
      guarded.close();
      await cleanup();
    }
  });

  void it('reconciles on reload: same block keeps serving, a changed one restarts, none stops', async () => {
    const { web, logs, cleanup } = setup();
    try {
      const first = makeWeb({ listen: [tcp()], digest: 'one' });
      await web.apply(first);
      const [address] = web.addresses;
      await web.apply(makeWeb({ listen: [tcp()], digest: 'one' }));
      assert.deepEqual(web.addresses, [address]);
      await web.apply(makeWeb({ listen: [tcp()], digest: 'two', headers: { 'X-New': '1' } }));
      assert.equal(web.addresses.length, 1);
      assert.notEqual(web.addresses[0], address);
      await web.apply(null);
      assert.deepEqual(web.addresses, []);
      await assert.rejects(get(address!, '/version'));
      assert.deepEqual(
        logs
          .filter((line) => line.level === 'info')
          .map((line) => line.message.replace(/:\d+(\/?)$/, ':PORT$1')),
        [
          'web: started listening on http://127.0.0.1:PORT',
          'web: dashboard at http://127.0.0.1:PORT/',
          'web: stopped listening on http://127.0.0.1:PORT',
          'web: started listening on http://127.0.0.1:PORT',
          'web: dashboard at http://127.0.0.1:PORT/',
          'web: stopped listening on http://127.0.0.1:PORT',
        ],
      );
    } finally {
      await cleanup();
    }
  });

  void it('logs a web configuration error and stays down, then starts once it is fixed', async () => {
    const { web, logs, cleanup } = setup();
    try {
      await web.apply(
        makeWeb({
          listen: [tcp()],
          error: 'web.authToken is configured but resolved to an empty token; x',
          digest: 'bad',
        }),
      );
      assert.deepEqual(web.addresses, []);
      assert.deepEqual(logs, [
        {
          level: 'error',
          fields: {},
          message:
            'Error in the web configuration, so not starting the web API: web.authToken is configured but resolved to an empty token; x',
        },
      ]);
      await web.apply(makeWeb({ listen: [tcp()], authToken: 't', digest: 'good' }));
      assert.equal(web.addresses.length, 1);
      assert.equal((await get(web.addresses[0]!, '/version')).status, 401);
    } finally {
      await cleanup();
    }
  });

  void it('does nothing after close', async () => {
    const { web, cleanup } = setup();
    await web.close();
    await web.apply(makeWeb({ listen: [tcp()] }));
    assert.deepEqual(web.addresses, []);
    await cleanup();
  });
});
