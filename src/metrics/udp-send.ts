// One statsd datagram over UDP, the reference's way (docs/metrics.md "statsd"): resolve the host on
// every send, open a fresh socket of the resolved family, send once, close. No retries.
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import type { StatsdTarget } from '../config/index.js';

/** Send `payload` as one datagram; rejects on resolution or send errors. */
export type DatagramSend = (
  target: StatsdTarget,
  payload: string,
  onSocketError: (error: Error) => void,
) => Promise<void>;

export const sendUdpDatagram: DatagramSend = async (target, payload, onSocketError) => {
  const { address, family } = await lookup(target.host);
  const socket = createSocket(family === 6 ? 'udp6' : 'udp4');
  // Errors the socket reports outside the send callback (never fatal, only logged).
  socket.on('error', onSocketError);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.send(payload, target.port, address, (error) => (error ? reject(error) : resolve()));
    });
  } finally {
    socket.close();
  }
};
