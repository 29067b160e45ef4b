// `npm start` helper (run by prestart): makes sure the quickstart's dashboard token exists in
// .yacron2-quickstart/token (dir 0700, file 0600; examples/quickstart.yaml reads it with
// web.authToken.fromFile) and prints the dashboard URL, token included, to this terminal only.
// The token travels in the URL fragment, which the browser never sends to the server; the page
// moves it into the tab's sessionStorage and drops it from the address bar. The daemon itself
// never logs the token (docs/dashboard.md "Quick start").
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dir = join(root, '.yacron2-quickstart');
const file = join(dir, 'token');
mkdirSync(dir, { recursive: true, mode: 0o700 });
chmodSync(dir, 0o700);
let token = '';
try {
  token = readFileSync(file, 'utf8').trim();
} catch {
  // First start: made below.
}
if (token === '') {
  token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
}
chmodSync(file, 0o600);
process.stdout.write(
  `\nyacron2 quickstart: dashboard at http://127.0.0.1:8080/#token=${token}\n` +
    `(the token is in ${file}; this line is printed here only, never logged by the daemon)\n\n`,
);
