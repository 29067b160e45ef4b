// The fault proxy's one-way blackhole (bench/README.md "The fault harness"): with the answers
// dropped the target still receives the client's bytes and the client hears nothing; with the
// requests dropped the target hears nothing; heal() restores both directions on the same socket.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { TcpProxy } from './cluster-harness.js';

/** An echo server that records each chunk it receives. */
async function echoServer(): Promise<{ port: number; received: string[]; close(): void }> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk.toString());
      socket.write(`echo:${chunk.toString()}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    received,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Send `text` and return the first chunk that comes back. */
async function exchange(client: Socket, text: string): Promise<string> {
  client.write(text);
  const [chunk] = (await once(client, 'data')) as [Buffer];
  return chunk.toString();
}

void test('one-way blackholes drop only their own direction; heal restores both', async (t) => {
  const server = await echoServer();
  const drops = new EventEmitter();
  const proxy = await TcpProxy.start(server.port, {
    onDrop: (direction) => drops.emit(direction),
  });
  t.after(async () => {
    await proxy.close();
    server.close();
  });
  const client = connect(proxy.port, '127.0.0.1');
  client.on('error', () => undefined);
  await once(client, 'connect');
  assert.equal(await exchange(client, 'one'), 'echo:one');

  proxy.blackhole('to-client');
  const echoDropped = once(drops, 'to-client');
  client.write('two');
  await echoDropped; // the server heard 'two': its echo is what the proxy dropped
  proxy.heal();
  assert.equal(await exchange(client, 'three'), 'echo:three', 'the dropped echo never arrives');

  proxy.blackhole('to-target');
  const requestDropped = once(drops, 'to-target');
  client.write('four');
  await requestDropped;
  proxy.heal();
  assert.equal(await exchange(client, 'five'), 'echo:five');
  assert.deepEqual(server.received, ['one', 'two', 'three', 'five'], 'four was dropped');
  client.destroy();
});
