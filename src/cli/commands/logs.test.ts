// `yacron2 logs` in-process against a stand-in control API on 127.0.0.1 (routes answered by the
// test): archives printed oldest first with their headers, the token sent and never printed, the
// failures' messages and exit codes, and --follow over the event streams (lines as they come, the
// archive header at the end, the wait for a next run), and `-c CONFIG` read by the real config
// loader (flags, then the environment, then the configuration).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { createDeferred, systemClock } from '../../common/index.js';
import { processLogsDeps, runLogsCli, type LogsDeps, type LogsFlagsWithTarget } from './logs.js';

const TOKEN = 'tok-0123456789abcdef';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface FakeApi {
  readonly url: string;
  readonly requests: { path: string; authorization: string | undefined }[];
}

async function fakeApi(
  t: TestContext,
  routes: Readonly<Record<string, Handler>>,
): Promise<FakeApi> {
  const requests: FakeApi['requests'] = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    requests.push({ path, authorization: request.headers.authorization });
    const handler = routes[path];
    if (handler === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found');
      return;
    }
    handler(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

const json =
  (body: unknown, status = 200): Handler =>
  (_request, response) =>
    void response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify(body));

const header = (at: string, exitCode: number) => ({
  finished_at: at,
  outcome: exitCode === 0 ? 'success' : 'failure',
  exit_code: exitCode,
  redacted: true,
  dropped_lines: 0,
});

const jsonl =
  (head: unknown, lines: readonly string[]): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    response.end(
      [head, ...lines.map((line) => ({ stream: 'stdout', line: `${line}\n` }))]
        .map((entry) => `${JSON.stringify(entry)}\n`)
        .join(''),
    );
  };

/** An output capture whose text can be awaited. */
class Capture {
  stdout = '';
  stderr = '';
  #waiters: { test: () => boolean; resolve: () => void }[] = [];
  readonly io = {
    stdout: (text: string): void => this.#add('stdout', text),
    stderr: (text: string): void => this.#add('stderr', text),
  };

  #add(stream: 'stdout' | 'stderr', text: string): void {
    this[stream] += text;
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.test()) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once `test` holds (the test's own timeout bounds it). */
  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    const done = createDeferred();
    this.#waiters.push({ test, resolve: () => done.resolve() });
    return done.promise;
  }
}

async function run(
  job: string,
  flags: LogsFlagsWithTarget,
  capture = new Capture(),
  env: Record<string, string> = {},
  readWebConfig: LogsDeps['readWebConfig'] = () => Promise.reject(new Error('no config here')),
): Promise<{ code: number; stdout: string; stderr: string }> {
  const code = await runLogsCli(job, flags, {
    io: capture.io,
    clock: systemClock,
    env,
    readFile: () => {
      throw new Error('no files here');
    },
    readWebConfig,
  });
  return { code, stdout: capture.stdout, stderr: capture.stderr };
}

const A1 = header('2026-06-20T03:00:01.000000+00:00', 0);
const A2 = header('2026-06-20T03:00:02.000000+00:00', 3);

void test('--last 2 prints the two newest archives oldest first, each after its header', async (t) => {
  const api = await fakeApi(t, {
    '/jobs/nightly%2Fdb/output?limit=2': json({
      name: 'nightly/db',
      archives: [
        { id: 'a2', ...A2, lines: 1 },
        { id: 'a1', ...A1, lines: 2 },
      ],
    }),
    '/jobs/nightly%2Fdb/runs/a1/output?format=jsonl': jsonl(A1, ['one', 'two']),
    '/jobs/nightly%2Fdb/runs/a2/output?format=jsonl': jsonl(A2, ['three']),
  });
  const result = await run('nightly/db', { last: '2', url: api.url, token: TOKEN });
  assert.deepEqual(result, {
    code: 0,
    stdout:
      '== nightly/db run a1 finished 2026-06-20T03:00:01.000000+00:00: success (exit 0) (redacted) ==\none\ntwo\n' +
      '== nightly/db run a2 finished 2026-06-20T03:00:02.000000+00:00: failure (exit 3) (redacted) ==\nthree\n',
    stderr: '',
  });
  assert.ok(api.requests.every((request) => request.authorization === `Bearer ${TOKEN}`));
});

void test('--run ID prints one; an unknown id or job exits 4, naming it', async (t) => {
  const api = await fakeApi(t, {
    '/jobs/etl/runs/a1/output?format=jsonl': jsonl(A1, ['one']),
    '/jobs/etl/runs/zz/output?format=jsonl': (_request, response) =>
      void response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('no archived output for run zz'),
    '/jobs/etl': json({ name: 'etl', running: false }),
  });
  const flags = { url: api.url };
  const one = await run('etl', { ...flags, run: 'a1' });
  assert.equal(one.code, 0);
  assert.equal(
    one.stdout,
    `== etl run a1 finished ${A1.finished_at}: success (exit 0) (redacted) ==\none\n`,
  );
  assert.deepEqual(await run('etl', { ...flags, run: 'zz' }), {
    code: 4,
    stdout: '',
    stderr: 'yacron2 logs: etl has no archived run zz\n',
  });
  assert.deepEqual(await run('nope', { ...flags, run: 'zz' }), {
    code: 4,
    stdout: '',
    stderr: `yacron2 logs: no job named nope at ${api.url}\n`,
  });
  assert.deepEqual(await run('nope', flags), {
    code: 4,
    stdout: '',
    stderr: `yacron2 logs: no job named nope at ${api.url}\n`,
  });
  // The bare 404 for a job that exists: the daemon has no store.
  assert.deepEqual(await run('etl', flags), {
    code: 1,
    stdout: '',
    stderr: `yacron2 logs: the daemon at ${api.url} keeps no archived output (it has no state section)\n`,
  });
});

void test('a job without archives: a note, exit 0', async (t) => {
  const api = await fakeApi(t, {
    '/jobs/etl/output?limit=1': json({ name: 'etl', archives: [] }),
  });
  assert.deepEqual(await run('etl', { url: api.url }), {
    code: 0,
    stdout: '',
    stderr: 'yacron2 logs: etl has no archived output (archiveOutput: true keeps it)\n',
  });
});

void test('401 names the URL and where the token came from, never the token; 503 and garbage exit 1', async (t) => {
  const unauthorized: Handler = (_request, response) =>
    void response.writeHead(401, { 'content-type': 'text/plain' }).end('401: Unauthorized');
  const api = await fakeApi(t, {
    '/jobs/etl/output?limit=1': unauthorized,
    '/jobs/busy/output?limit=1': json(
      { error: 'Service Unavailable', message: 'the store is opening' },
      503,
    ),
    '/jobs/odd/output?limit=1': json({ name: 'odd', archives: 'many' }),
  });
  const wrong = await run('etl', { url: api.url }, new Capture(), { YACRON2_API_TOKEN: TOKEN });
  assert.deepEqual(wrong, {
    code: 1,
    stdout: '',
    stderr: `yacron2 logs: the daemon at ${api.url} refused the token from YACRON2_API_TOKEN (401)\n`,
  });
  const none = await run('etl', { url: api.url });
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /wants a token \(401\): pass --token-file FILE or -c CONFIG, or set YACRON2_API_TOKEN/,
  );
  const busy = await run('busy', { url: api.url });
  assert.equal(busy.code, 1);
  assert.match(
    busy.stderr,
    /cannot answer GET \/jobs\/busy\/output\?limit=1 yet \(503: the store is opening\); try again shortly\n$/,
  );
  const odd = await run('odd', { url: api.url });
  assert.equal(odd.code, 1);
  assert.match(odd.stderr, /is not what this yacron2 reads/);
  for (const result of [wrong, none, busy, odd]) assert.ok(!result.stderr.includes(TOKEN));
});

void test('an unreachable daemon and bad flags', async () => {
  // A port nothing listens on: a server's, once it is closed.
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  const url = `http://127.0.0.1:${port}`;
  const down = await run('etl', { url, token: TOKEN });
  assert.equal(down.code, 1);
  assert.match(
    down.stderr,
    new RegExp(`^yacron2 logs: cannot reach the yacron2 daemon at ${url}: .*ECONNREFUSED`),
  );
  assert.ok(!down.stderr.includes(TOKEN));
  assert.deepEqual(await run('etl', { last: '0' }), {
    code: 2,
    stdout: '',
    stderr: "yacron2 logs: --last must be an integer from 1 to 100, got '0'\n",
  });
  assert.deepEqual(await run('etl', { url: 'https://x:1' }), {
    code: 2,
    stdout: '',
    stderr: "yacron2 logs: --url must be http:// (the control API has no TLS), got 'https://x:1'\n",
  });
});

/** An SSE response the test writes events to. */
function sse(
  onOpen: (send: (event: string, data: unknown) => void, response: ServerResponse) => void,
): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.flushHeaders();
    onOpen(
      (event, data) => void response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
      response,
    );
  };
}

void test('--follow on a running job: lines as they come, then the new archive header', async (t) => {
  const logs = createDeferred<(event: string, data: unknown) => void>();
  const events = createDeferred<(event: string, data: unknown) => void>();
  let archives = [{ id: 'a1', ...A1, lines: 1 }];
  const api = await fakeApi(t, {
    '/jobs/etl/output?limit=1': (request, response) =>
      json({ name: 'etl', archives })(request, response),
    '/jobs/etl/output?limit=5': (request, response) =>
      json({ name: 'etl', archives })(request, response),
    '/events?job=etl': sse((send) => events.resolve(send)),
    '/jobs/etl': json({ name: 'etl', running: true }),
    '/jobs/etl/logs': sse((send) => logs.resolve(send)),
  });
  const capture = new Capture();
  const done = run('etl', { follow: true, url: api.url }, capture);
  const sendLine = await logs.promise;
  const sendEvent = await events.promise;
  sendLine('line', { stream: 'stdout', line: 'first' });
  await capture.until(() => capture.stdout === 'first\n');
  sendLine('line', { stream: 'stderr', line: 'second' });
  await capture.until(() => capture.stdout === 'first\nsecond\n');
  archives = [{ id: 'a2', ...A2, lines: 2 }, ...archives];
  sendEvent('run:finished', {
    job: 'etl',
    runId: 'r2',
    record: { outcome: 'failure', exit_code: 3, finished_at: A2.finished_at },
  });
  sendLine('end', {});
  const result = await done;
  assert.deepEqual(result, {
    code: 0,
    stdout: `first\nsecond\n== etl run a2 finished ${A2.finished_at}: failure (exit 3) (redacted) ==\n`,
    stderr: '',
  });
});

void test('--follow on an idle job waits for its next run; without archives the record ends it', async (t) => {
  const events = createDeferred<(event: string, data: unknown) => void>();
  const api = await fakeApi(t, {
    '/jobs/etl/output?limit=1': json({ name: 'etl', archives: [] }),
    '/jobs/etl/output?limit=5': json({ name: 'etl', archives: [] }),
    '/events?job=etl': sse((send) => events.resolve(send)),
    '/jobs/etl': json({ name: 'etl', running: false }),
    '/jobs/etl/logs': sse((send, response) => {
      send('line', { stream: 'stdout', line: 'hello' });
      send('end', {});
      response.end();
    }),
  });
  const capture = new Capture();
  const done = run('etl', { follow: true, url: api.url }, capture);
  const sendEvent = await events.promise;
  await capture.until(() => capture.stderr.includes('waiting'));
  assert.equal(capture.stderr, 'yacron2 logs: etl is not running; waiting for its next run\n');
  assert.ok(!api.requests.some((request) => request.path === '/jobs/etl/logs'), 'not opened yet');
  sendEvent('run:started', { job: 'etl', runId: 'r9' });
  sendEvent('run:finished', {
    job: 'etl',
    runId: 'r9',
    record: { outcome: 'success', exit_code: 0, finished_at: A1.finished_at },
  });
  const result = await done;
  assert.equal(result.code, 0);
  assert.equal(
    result.stdout,
    `hello\n== etl run finished ${A1.finished_at}: success (exit 0) ==\n`,
  );
});

void test('--follow: a logs stream that stops without its end is an error', async (t) => {
  const api = await fakeApi(t, {
    '/jobs/etl/output?limit=1': json({ name: 'etl', archives: [] }),
    '/events?job=etl': sse(() => undefined),
    '/jobs/etl': json({ name: 'etl', running: true }),
    '/jobs/etl/logs': sse((send, response) => {
      send('line', { stream: 'stdout', line: 'partial' });
      response.end();
    }),
  });
  const result = await run('etl', { follow: true, url: api.url });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, 'partial\n');
  assert.match(result.stderr, /the logs stream of etl at .* ended before the run did/);
});

/** A configuration directory holding `jobs.yaml` with this `web` section body. */
async function configWith(t: TestContext, web: string): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-logs-config-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'jobs.yaml');
  await writeFile(path, `jobs:\n${web}`);
  return { dir, path };
}

void test('-c CONFIG: the listener and token of the web section, resolved as the daemon resolves them', async (t) => {
  const api = await fakeApi(t, {
    '/jobs/etl/runs/a1/output?format=jsonl': jsonl(A1, ['one']),
  });
  const port = new URL(api.url).port;
  const { dir, path } = await configWith(
    t,
    `web:\n  listen:\n    - http://0.0.0.0:${port}\n  authToken:\n    fromFile: TOKEN_FILE\n`,
  );
  await writeFile(join(dir, 'token'), `${TOKEN}\n`);
  await writeFile(path, (await readFile(path, 'utf8')).replace('TOKEN_FILE', join(dir, 'token')));
  const { readWebConfig } = processLogsDeps(new Capture().io);
  const one = await run('etl', { run: 'a1', config: path }, new Capture(), {}, readWebConfig);
  assert.deepEqual(one, {
    code: 0,
    stdout: `== etl run a1 finished ${A1.finished_at}: success (exit 0) (redacted) ==\none\n`,
    stderr: '',
  });
  assert.deepEqual(api.requests.at(-1), {
    path: '/jobs/etl/runs/a1/output?format=jsonl',
    authorization: `Bearer ${TOKEN}`,
  });
  // The directory form, as the daemon takes it.
  assert.equal(
    (await run('etl', { run: 'a1', config: dir }, new Capture(), {}, readWebConfig)).code,
    0,
  );
  // The environment beats the configuration, a flag beats both; a refused token names its source.
  const unauthorized = await fakeApi(t, {
    '/jobs/etl/runs/a1/output?format=jsonl': (_request, response) =>
      void response.writeHead(401, { 'content-type': 'text/plain' }).end('401: Unauthorized'),
  });
  const env = { YACRON2_API_URL: unauthorized.url, YACRON2_API_TOKEN: 'env-token' };
  const fromEnv = await run('etl', { run: 'a1', config: path }, new Capture(), env, readWebConfig);
  assert.equal(fromEnv.code, 1);
  assert.equal(
    fromEnv.stderr,
    `yacron2 logs: the daemon at ${unauthorized.url} refused the token from YACRON2_API_TOKEN (401)\n`,
  );
  const flagged = await run(
    'etl',
    { run: 'a1', config: path, url: api.url, token: 'flag-token' },
    new Capture(),
    env,
    readWebConfig,
  );
  assert.equal(flagged.code, 0);
  assert.equal(api.requests.at(-1)?.authorization, 'Bearer flag-token');
  // Only the URL from the environment: the token still comes from the configuration.
  await run(
    'etl',
    { run: 'a1', config: path },
    new Capture(),
    { YACRON2_API_URL: api.url },
    readWebConfig,
  );
  assert.equal(api.requests.at(-1)?.authorization, `Bearer ${TOKEN}`);
  const refused = await run(
    'etl',
    { run: 'a1', config: path },
    new Capture(),
    { YACRON2_API_URL: unauthorized.url },
    readWebConfig,
  );
  assert.equal(
    refused.stderr,
    `yacron2 logs: the daemon at ${unauthorized.url} refused the token from web.authToken in ${path} (401)\n`,
  );
  assert.ok(![fromEnv, flagged, refused].some((result) => result.stderr.includes(TOKEN)));
});

void test('-c CONFIG problems: no web section, no usable listener, an empty token, a config the daemon refuses', async (t) => {
  const { readWebConfig } = processLogsDeps(new Capture().io);
  const cases: [string, RegExp][] = [
    ['', /has no web section: the daemon serves no control API \(set web\.listen, or pass --url\)/],
    [
      'web:\n  listen:\n    - http://127.0.0.1:0\n',
      /web\.listen in .* binds port 0 .*: pass --url/,
    ],
    [
      'web:\n  listen:\n    - ftp://x\n',
      /web\.listen in .* has no listener a client can reach \(ftp:\/\/x\): pass --url/,
    ],
    [
      'web:\n  listen:\n    - http://127.0.0.1:1\n  authToken:\n    fromEnvVar: YACRON2_TEST_UNSET_TOKEN\n',
      /web\.authToken is configured but resolved to an empty token.* \(in .*jobs\.yaml\)/,
    ],
    ['web:\n  listen: nope\n', /cannot load the configuration at .*jobs\.yaml: /],
  ];
  for (const [web, message] of cases) {
    const { path } = await configWith(t, web);
    const result = await run('etl', { config: path }, new Capture(), {}, readWebConfig);
    assert.equal(result.code, 1, web);
    assert.match(result.stderr, message, web);
    assert.equal(result.stdout, '');
  }
  const missing = await run(
    'etl',
    { config: '/nonexistent/yacron2.yaml' },
    new Capture(),
    {},
    readWebConfig,
  );
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /^yacron2 logs: cannot load the configuration at \/nonexistent\/yacron2\.yaml: /,
  );
  assert.equal((await run('etl', { config: '' })).code, 2);
  // A flag makes the configuration's missing listener moot (its token is still read).
  const api = await fakeApi(t, { '/jobs/etl/output?limit=1': json({ name: 'etl', archives: [] }) });
  const { path } = await configWith(t, 'web:\n  listen:\n    - http://127.0.0.1:0\n');
  assert.equal(
    (await run('etl', { config: path, url: api.url }, new Capture(), {}, readWebConfig)).code,
    0,
  );
});
