// The ACME showcase's report sink (docker-compose-acme.yml): prints what the jobs send, so the
// reporting features show in `docker compose logs sink`. HTTP on :9000 (the webhook reports,
// any path) and statsd on UDP :9125. Runs in the yacron2 image with plain node.
// Must not: keep more than 64 KiB of a request body or print more than 2,000 characters of one
// message, or answer anything but 204/413 (it is a sink, not an API).
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';

const LIMIT_BYTES = 64 * 1024;
const shown = (text) => (text.length > 2000 ? `${text.slice(0, 2000)}…` : text);

createServer((req, res) => {
  const chunks = [];
  let bytes = 0;
  req.on('data', (chunk) => {
    bytes += chunk.length;
    if (bytes <= LIMIT_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim();
    console.log(`[sink webhook] ${req.method} ${shown(req.url ?? '')} ${shown(body)}`);
    res.writeHead(bytes > LIMIT_BYTES ? 413 : 204).end();
  });
})
  .setTimeout(10_000)
  .listen(9000, '0.0.0.0', () => console.log('[sink] webhooks on :9000'));

createSocket('udp4')
  .on('message', (message) =>
    console.log(`[sink statsd] ${shown(message.toString('utf8').trim())}`),
  )
  .bind(9125, '0.0.0.0', () => console.log('[sink] statsd on udp :9125'));
