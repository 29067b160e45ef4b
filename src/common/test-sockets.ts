// Test support (no tests here): raw client sockets for the connection limits of the daemon's
// HTTP servers (docs/http-api.md "Connection limits"): a socket opened and left idle (or sent a
// part of a request), told apart as held or closed by the server (bound the waits with
// state/testing.ts's within()).
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** A client socket the test keeps open; `closed` settles when the server (or the test) ends it. */
export interface ClientSocket {
  readonly socket: Socket;
  readonly closed: Promise<void>;
  isClosed(): boolean;
  /** Everything received so far, as latin1. */
  received(): string;
}

/** Connect from `localAddress` (default the kernel's choice) and resolve once connected. */
export async function openSocket(
  port: number,
  localAddress?: string,
  host = '127.0.0.1',
): Promise<ClientSocket> {
  const socket = connect({ port, host, ...(localAddress === undefined ? {} : { localAddress }) });
  let closed = false;
  let text = '';
  socket.on('error', () => undefined); // a refused socket may be reset
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  const closedPromise = once(socket, 'close').then(() => {
    closed = true;
  });
  await once(socket, 'connect');
  return { socket, closed: closedPromise, isClosed: () => closed, received: () => text };
}

/** Resolves once `count` of `sockets` are closed (by the server: the test closes none). */
export function closedCount(sockets: readonly ClientSocket[], count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    for (const client of sockets) {
      void client.closed.then(() => {
        seen += 1;
        if (seen === count) resolve();
      });
    }
  });
}

/** Write one raw HTTP/1.1 request on `client` and resolve with its status once it is in. */
export async function rawStatus(client: ClientSocket, head: string): Promise<number> {
  client.socket.write(head);
  for (;;) {
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(client.received());
    if (status !== null) return Number(status[1]);
    if (client.isClosed()) throw new Error(`closed before a status line: ${client.received()}`);
    await Promise.race([once(client.socket, 'data'), client.closed]);
  }
}
