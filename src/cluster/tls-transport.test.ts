// The real mTLS listener and poller on 127.0.0.1 with certificates made by openssl for this test:
// client certificates required, SAN checked against the address a peer was reached at, a peer
// from another CA is untrusted, bodies capped both ways, gzip, ETag/304, and three real nodes
// converging on one leader.
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { FakeClock, createDeferred, systemClock, type TimerHandle } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import type { ClusterAddress } from '../config/index.js';
import { GossipNode } from './gossip-node.js';
import { makeTestCa, type NodeCert, type TestCa } from './test-tls-fixture.js';
import { loadTlsMaterial, type TlsMaterial } from './tls-material.js';
import { bindTarget } from './tls-server.js';
import { TlsPeerTransport } from './tls-transport.js';
import type { OutgoingPeerRequest, PeerListener, PeerRequestHandler } from './transport.js';

const clusterCa = makeTestCa('cluster');
const otherCa = makeTestCa('other');
const LOOPBACK: ClusterAddress = { text: '127.0.0.1:0', host: '127.0.0.1', port: 0 };
const ID = `v1:${'1'.repeat(64)}`;

async function material(ca: TestCa, cert: NodeCert): Promise<TlsMaterial> {
  return loadTlsMaterial({ ca: ca.caPath, cert: cert.certPath, key: cert.keyPath });
}

async function nodeMaterial(
  ca = clusterCa,
  sans = ['IP:127.0.0.1', 'DNS:localhost'],
): Promise<TlsMaterial> {
  return material(ca, ca.issue('node', sans));
}

function transport(tls: TlsMaterial, clock = systemClock): TlsPeerTransport {
  return new TlsPeerTransport({
    listen: LOOPBACK,
    material: tls,
    connectTimeoutMs: 5_000,
    clock,
    logger: silentLogger(),
  });
}

function get(headers: Record<string, string> = {}): OutgoingPeerRequest {
  return { method: 'GET', path: '/peer', headers, signal: new AbortController().signal };
}

const echo: PeerRequestHandler = (request) => ({
  status: 200,
  headers: { 'Content-Type': 'application/json', ETag: '"t"' },
  body: new TextEncoder().encode(
    JSON.stringify({ path: request.path, method: request.method, bytes: request.body.byteLength }),
  ),
});

async function withServer<T>(
  tls: TlsMaterial,
  handler: PeerRequestHandler,
  use: (host: string, listener: PeerListener) => Promise<T>,
  clock = systemClock,
): Promise<T> {
  const server = transport(tls, clock);
  const listener = await server.listen(handler);
  try {
    return await use(listener.address, listener);
  } finally {
    await listener.close();
    await server.close();
  }
}

void test('a peer with a certificate from the cluster CA is reached and answers', async () => {
  const client = transport(await nodeMaterial());
  await withServer(await nodeMaterial(), echo, async (host) => {
    const exchange = await client.request(host, get());
    assert.equal(exchange.kind, 'response');
    if (exchange.kind !== 'response') return;
    assert.equal(exchange.status, 200);
    assert.equal(exchange.headers.etag, '"t"');
    assert.deepEqual(JSON.parse(new TextDecoder().decode(exchange.body)), {
      path: '/peer',
      method: 'GET',
      bytes: 0,
    });
  });
  await client.close();
});

void test('a peer whose certificate another CA signed is a TLS failure (untrusted)', async () => {
  const client = transport(await nodeMaterial());
  await withServer(
    await material(otherCa, otherCa.issue('rogue', ['IP:127.0.0.1'])),
    echo,
    async (host) => {
      const exchange = await client.request(host, get());
      assert.equal(exchange.kind, 'failure');
      assert.equal(
        exchange.kind === 'failure' && exchange.reason,
        'tls',
        exchange.kind === 'failure' ? exchange.message : '',
      );
    },
  );
  await client.close();
});

void test('the certificate must name the address the peer was reached at (SAN pinning)', async () => {
  const client = transport(await nodeMaterial());
  await withServer(await nodeMaterial(clusterCa, ['DNS:yacron-b.internal']), echo, async (host) => {
    const exchange = await client.request(host, get());
    assert.equal(exchange.kind === 'failure' && exchange.reason, 'tls');
    assert.match(
      exchange.kind === 'failure' ? exchange.message : '',
      /ERR_TLS_CERT_ALTNAME_INVALID/,
    );
  });
  await client.close();
});

void test('the listener requires a client certificate from the cluster CA', async () => {
  const rogue = transport(await material(otherCa, otherCa.issue('rogue', ['IP:127.0.0.1'])));
  await withServer(await nodeMaterial(), echo, async (host) => {
    const exchange = await rogue.request(host, get());
    assert.equal(exchange.kind, 'failure', 'a client from another CA gets no answer');
    const port = Number(host.split(':')[1]);
    const ca = (await nodeMaterial()).ca;
    const noCert = await new Promise<string>((resolve) => {
      const request = httpsRequest(
        { host: '127.0.0.1', port, path: '/peer', ca, servername: '' },
        (response) => {
          response.resume();
          resolve(`HTTP ${response.statusCode}`);
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      request.end();
    });
    assert.doesNotMatch(noCert, /^HTTP/, 'a client without a certificate never reaches a route');
  });
  await rogue.close();
});

void test('routes: 404 elsewhere, 405 for the wrong method; POST bodies over 256 KiB are 413', async () => {
  const client = transport(await nodeMaterial());
  await withServer(
    await nodeMaterial(),
    (request) => {
      if (request.path === '/peer' && request.method !== 'GET')
        return { status: 405, headers: {}, body: new Uint8Array(0) };
      return echo(request);
    },
    async (host) => {
      const big = await client.request(host, {
        method: 'POST',
        path: '/reboot-ran',
        headers: {},
        body: new Uint8Array(262_145),
        signal: new AbortController().signal,
      });
      assert.equal(big.kind === 'response' && big.status, 413);
      const fits = await client.request(host, {
        method: 'POST',
        path: '/reboot-ran',
        headers: {},
        body: new Uint8Array(262_144),
        signal: new AbortController().signal,
      });
      assert.equal(fits.kind === 'response' && fits.status, 200);
    },
  );
  await client.close();
});

void test('a request body that does not arrive within connectTimeout is answered 408', async () => {
  const clock = new FakeClock();
  const armed = createDeferred();
  const setTimer = clock.setTimer.bind(clock);
  clock.setTimer = (callback: () => void, delayMs: number): TimerHandle => {
    armed.resolve();
    return setTimer(callback, delayMs);
  };
  const tls = await nodeMaterial();
  await withServer(
    tls,
    echo,
    async (host) => {
      const port = Number(host.split(':')[1]);
      const status = new Promise<number>((resolve, reject) => {
        const request = httpsRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/reboot-ran',
            ca: tls.ca,
            cert: tls.cert,
            key: tls.key,
            servername: '',
            headers: { 'Content-Length': '100' },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.write('{"job_set');
      });
      await armed.promise;
      await clock.advance(5_000);
      assert.equal(await status, 408);
    },
    clock,
  );
});

void test('large bodies are gzipped for a poller that accepts gzip, and decoded', async () => {
  const client = transport(await nodeMaterial());
  const payload = JSON.stringify({ pad: 'x'.repeat(50_000) });
  await withServer(
    await nodeMaterial(),
    () => ({
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: new TextEncoder().encode(payload),
    }),
    async (host) => {
      const exchange = await client.request(host, get());
      assert.ok(exchange.kind === 'response');
      assert.equal(exchange.headers['content-encoding'], 'gzip');
      assert.equal(new TextDecoder().decode(exchange.body), payload);
    },
  );
  await client.close();
});

void test('a response that decodes past 256 KiB is oversized (checked while streaming: a gzip bomb stops early)', async () => {
  const client = transport(await nodeMaterial());
  await withServer(
    await nodeMaterial(),
    () => ({ status: 200, headers: {}, body: new Uint8Array(50 * 1024 * 1024) }),
    async (host) => {
      const exchange = await client.request(host, get());
      assert.deepEqual(exchange.kind === 'failure' && exchange.reason, 'oversized');
    },
  );
  await client.close();
});

void test('a peer that accepts and never answers is abandoned when the caller aborts', async () => {
  const client = transport(await nodeMaterial());
  const sockets: Socket[] = [];
  const silent = createTcpServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as { port: number }).port;
  const abort = new AbortController();
  const pending = client.request(`127.0.0.1:${port}`, { ...get(), signal: abort.signal });
  while (sockets.length === 0) await new Promise((resolve) => silent.once('connection', resolve));
  abort.abort();
  const exchange = await pending;
  assert.deepEqual(exchange.kind === 'failure' && [exchange.reason, exchange.message], [
    'network',
    `Cannot reach host 127.0.0.1:${port}: no answer in time`,
  ]);
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await client.close();
});

void test('bind targets: a bare :port binds loopback; * is dual-stack; [::] is IPv6 only', () => {
  assert.deepEqual(bindTarget({ text: ':8443', host: '', port: 8443 }), {
    host: '127.0.0.1',
    ipv6Only: false,
  });
  assert.deepEqual(bindTarget({ text: '*:8443', host: '*', port: 8443 }), {
    host: '::',
    ipv6Only: false,
  });
  assert.deepEqual(bindTarget({ text: '[::]:8443', host: '::', port: 8443 }), {
    host: '::',
    ipv6Only: true,
  });
  assert.deepEqual(bindTarget({ text: '0.0.0.0:8443', host: '0.0.0.0', port: 8443 }), {
    host: '0.0.0.0',
    ipv6Only: false,
  });
});

void test('a port already taken fails the listener start with a clear error', async () => {
  const tls = await nodeMaterial();
  await withServer(tls, echo, async (host) => {
    const port = Number(host.split(':')[1]);
    const second = new TlsPeerTransport({
      listen: { text: `127.0.0.1:${port}`, host: '127.0.0.1', port },
      material: tls,
      connectTimeoutMs: 5_000,
      clock: systemClock,
      logger: silentLogger(),
    });
    await assert.rejects(second.listen(echo), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'YC_ERR_CLUSTER_LISTEN');
      assert.match(
        error.message,
        new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      );
      return true;
    });
  });
});

void test('three real mTLS nodes agree and elect one leader; a node from another CA is untrusted', async () => {
  const names = ['node-a', 'node-b', 'node-c'];
  const transports = await Promise.all(names.map(async () => transport(await nodeMaterial())));
  const rogueTransport = transport(
    await material(otherCa, otherCa.issue('rogue', ['IP:127.0.0.1'])),
  );
  const listeners: PeerListener[] = [];
  const nodes: GossipNode[] = [];
  // Bind first (ports are chosen by the system), then build each node with its peers' addresses.
  const handlers: PeerRequestHandler[] = [];
  for (const [index, server] of [...transports, rogueTransport].entries()) {
    listeners.push(await server.listen((request) => handlers[index]!(request)));
  }
  const hosts = listeners.map((listener) => listener.address);
  for (const [index, name] of [...names, 'rogue'].entries()) {
    const node = new GossipNode(
      {
        nodeName: name,
        peers: hosts.slice(0, 3).filter((_, at) => at !== index),
        electLeader: true,
        distribution: 'single-leader',
        driftAfter: 3,
        connectTimeoutMs: 5_000,
      },
      {
        clock: systemClock,
        transport: index < 3 ? transports[index]! : rogueTransport,
        logger: silentLogger(),
        jobSetId: () => ID,
      },
    );
    handlers[index] = node.handler;
    nodes.push(node);
  }
  const [a, b, c, rogue] = nodes as [GossipNode, GossipNode, GossipNode, GossipNode];
  for (let round = 0; round < 2; round++)
    for (const node of [a, b, c, rogue]) await node.runRound();
  for (const node of [a, b, c]) {
    assert.deepEqual(
      node.peers().map((peer) => peer.status),
      ['agreed', 'agreed'],
    );
    assert.equal(node.leaderName(), 'node-a');
  }
  assert.deepEqual([a.isLeader(), b.isLeader(), c.isLeader()], [true, false, false]);
  assert.deepEqual(
    rogue.peers().map((peer) => peer.status),
    ['untrusted', 'untrusted', 'untrusted'],
  );
  assert.equal(rogue.isQuorate(), false);
  for (const listener of listeners) await listener.close();
  for (const server of [...transports, rogueTransport]) await server.close();
});

void test(
  'closing the listener ends at once a connection still in its handshake and a keep-alive session',
  { timeout: 4_000 },
  async () => {
    // connectTimeout (the handshake bound) is far past the test's timeout: only close() can end them.
    const server = new TlsPeerTransport({
      listen: LOOPBACK,
      material: await nodeMaterial(),
      connectTimeoutMs: 60_000,
      clock: systemClock,
      logger: silentLogger(),
    });
    const listener = await server.listen(echo);
    const client = transport(await nodeMaterial());
    const exchange = await client.request(listener.address, get());
    assert.equal(exchange.kind, 'response', 'a keep-alive session is open');
    const port = Number(listener.address.split(':')[1]);
    const idle = await new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
      socket.on('error', reject);
    });
    const idleClosed = new Promise<void>((resolve) => idle.once('close', () => resolve()));
    idle.on('error', () => undefined);
    await listener.close();
    await idleClosed;
    await server.close();
    await client.close();
  },
);

void test('300 idle TCP connections from one source do not stop a valid mTLS poll', async () => {
  // Before the handshake budget, connections that never began a handshake counted against the
  // 256-connection cap for the whole handshake timeout: 260 of them locked real peers out.
  const client = transport(await nodeMaterial());
  await withServer(await nodeMaterial(), echo, async (host) => {
    const [address, port] = [host.slice(0, host.lastIndexOf(':')), Number(host.split(':').pop())];
    const idle: Socket[] = [];
    let evicted = 0;
    const mostEvicted = createDeferred<void>();
    try {
      for (let i = 0; i < 300; i += 1) {
        const socket = connect(port, address);
        socket.on('error', () => undefined);
        socket.once('close', () => {
          evicted += 1;
          if (evicted === 300 - 8) mostEvicted.resolve();
        });
        idle.push(socket);
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      }
      const exchange = await client.request(host, get());
      assert.equal(exchange.kind === 'response' && exchange.status, 200);
      // The listener closed all but the newest few idle connections of that source.
      await mostEvicted.promise;
      assert.ok(evicted >= 292, `${evicted} idle connections closed`);
    } finally {
      for (const socket of idle) socket.destroy();
    }
  });
  await client.close();
});

void test('a poll on a keep-alive connection the peer reset while idle is retried once on a fresh one', async () => {
  // What a process resumed after a pause meets: its idle connections were closed by the peers
  // while it could not see it. The poll must not take that for an unreachable peer.
  const tls = await nodeMaterial();
  const sockets = new Set<Socket>();
  let served = 0;
  const server = createHttpsServer({ ...tls, requestCert: false }, (request, response) => {
    served += 1;
    request.resume();
    response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
  // The TCP sockets under the TLS ones: only those can send a reset.
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  const client = transport(tls);
  try {
    const first = await client.request(host, get());
    assert.equal(first.kind === 'response' && first.status, 200);
    assert.equal(sockets.size, 1, 'the connection is kept alive');
    // Reset it from the server's side and poll again in the same tick: the client has not seen
    // the reset yet, so it reuses that socket.
    for (const socket of sockets) socket.resetAndDestroy();
    const second = await client.request(host, get());
    assert.equal(second.kind === 'response' && second.status, 200, JSON.stringify(second));
    assert.equal(served, 2);
  } finally {
    await client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
