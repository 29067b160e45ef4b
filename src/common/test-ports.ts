// Ports on 127.0.0.1 for tests that start real listeners (daemons, etcd, proxies).
// Must not: be used outside tests — a free port is only a guess until a listener holds it.
import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 held by a listener until release(): while held, no other listener of
 * this machine (a test's own proxies included) can be handed the same number.
 */
export async function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolvePort) => server.listen(0, '127.0.0.1', resolvePort));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    release: () => new Promise<void>((resolveClose) => server.close(() => resolveClose())),
  };
}

/** A TCP port free right now on 127.0.0.1 (bound and released; a listener takes it next). */
export async function freePort(): Promise<number> {
  const reserved = await reservePort();
  await reserved.release();
  return reserved.port;
}
