// The image's HEALTHCHECK (README.md "Containers"): GET $YACRON2_HEALTH_URL and exit 0 when the
// daemon's control API answers, 1 when it does not. Unset (no control API configured) → 0: the
// container's liveness is then the daemon's process itself. Any answer below 500 counts (a 401
// from an API with a token still proves the daemon serves); set YACRON2_HEALTH_TOKEN_FILE to a
// file holding the token to ask with it, and then only a 2xx counts.
// Must not: print the token, wait longer than 4 s (the HEALTHCHECK timeout is 5 s), or read more
// than 64 KiB of an answer. Plain node: no curl in the image.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

const url = process.env.YACRON2_HEALTH_URL ?? '';
if (url === '') process.exit(0);

let token = '';
const tokenFile = process.env.YACRON2_HEALTH_TOKEN_FILE ?? '';
if (tokenFile !== '') {
  try {
    token = readFileSync(tokenFile, 'utf8').trim();
  } catch (error) {
    console.error(
      `healthcheck: cannot read YACRON2_HEALTH_TOKEN_FILE ${tokenFile}: ${error.code ?? error.message}`,
    );
    process.exit(1);
  }
}

let target;
try {
  target = new URL(url);
  if (target.protocol !== 'http:') throw new Error(`scheme ${target.protocol} is not http:`);
} catch (error) {
  console.error(`healthcheck: YACRON2_HEALTH_URL ${url} is not usable: ${error.message}`);
  process.exit(1);
}

const LIMIT_BYTES = 64 * 1024;
const req = request(
  target,
  {
    method: 'GET',
    timeout: 4000,
    headers: token === '' ? {} : { Authorization: `Bearer ${token}` },
  },
  (res) => {
    let bytes = 0;
    const status = res.statusCode ?? 0;
    const healthy = token === '' ? status > 0 && status < 500 : status >= 200 && status < 300;
    const finish = () => {
      if (!healthy)
        console.error(`healthcheck: ${target.origin}${target.pathname} answered ${status}`);
      process.exit(healthy ? 0 : 1);
    };
    res.on('data', (chunk) => {
      bytes += chunk.length;
      if (bytes > LIMIT_BYTES) res.destroy();
    });
    res.on('end', finish);
    res.on('close', finish);
  },
);
req.on('timeout', () => req.destroy(new Error('no answer within 4 s')));
req.on('error', (error) => {
  console.error(`healthcheck: ${target.origin}${target.pathname}: ${error.message}`);
  process.exit(1);
});
req.end();
