// runJobCli(): the rules every job command shares (docs/cli.md "Job-facing commands"): `--` only
// before `lock run`, no action / bad action / help, usage errors before the environment check, the
// missing-variable message, and how transport failures and HTTP errors become exit 1.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { FakeClock } from '../../common/index.js';
import { FakeStateEndpoint, runJob } from './endpoint-fixture.test.js';

const BIN = resolve(import.meta.dirname, '../../../bin/yacron2.js');

void describe('runJobCli() command-line rules', () => {
  void it('refuses `--` anywhere but before `lock run`, with exit 2', async () => {
    const result = await runJob(['state', 'set', 'k', '--', 'v']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'yacron2: error: `--` is only valid before a `lock run` command\n');
  });

  void it('no action: `yacron2 cursor: no action given (see --help)`, exit 2', async () => {
    const result = await runJob(['cursor']);
    assert.deepEqual(
      [result.code, result.stderr],
      [2, 'yacron2 cursor: no action given (see --help)\n'],
    );
  });

  void it('an unknown action is an invalid choice, exit 2', async () => {
    const result = await runJob(['lock', 'steal', 'x']);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /yacron2 lock: error: argument action: invalid choice: 'steal' \(choose from 'acquire', 'release', 'run'\)/,
    );
  });

  void it('--help lists the actions, or the flags of one action, on stdout with exit 0', async () => {
    const command = await runJob(['artifact', '--help']);
    assert.equal(command.code, 0);
    assert.match(command.stdout, /^usage: yacron2 artifact \[-h\] \{put,get,list\} \.\.\./);
    assert.match(command.stdout, /\n {2}get +Write the newest version/);
    const action = await runJob(['idempotent', '-h']);
    assert.equal(action.code, 0);
    assert.match(
      action.stdout,
      /^usage: yacron2 idempotent \[-h\] \[--ttl SECONDS\] \[--release\] \[--scope NAME \| --global\] KEY\n/,
    );
  });

  void it('a usage error prints the usage line and `<prog>: error: ...`, exit 2, before any env check', async () => {
    const result = await runJob(['state', 'get']);
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      'usage: yacron2 state get [-h] [--scope NAME | --global] KEY\n' +
        'yacron2 state get: error: the following arguments are required: KEY\n',
    );
  });

  void it('outside a job: names the missing variable, exit 1', async () => {
    const noUrl = await runJob(['state', 'get', 'k'], { env: { YACRON2_STATE_TOKEN: 'x' } });
    assert.equal(noUrl.code, 1);
    assert.match(
      noUrl.stderr,
      /^yacron2 state: not running inside a yacron2 job: YACRON2_STATE_URL is not set/,
    );
    const noToken = await runJob(['secret', 'list'], {
      env: { YACRON2_STATE_URL: 'http://127.0.0.1:1', YACRON2_STATE_TOKEN: '' },
    });
    assert.equal(noToken.code, 1);
    assert.match(
      noToken.stderr,
      /^yacron2 secret: not running inside a yacron2 job: YACRON2_STATE_TOKEN is not set/,
    );
  });
});

void describe('runJobCli() against the endpoint', () => {
  let endpoint: FakeStateEndpoint;
  before(async () => {
    endpoint = await FakeStateEndpoint.start();
  });
  after(() => endpoint.close());

  void it('sends the bearer token and no proxy, and prints the reply', async () => {
    await runJob(['state', 'set', 'k', 'v'], { env: endpoint.env });
    const result = await runJob(['state', 'get', 'k'], {
      env: { ...endpoint.env, HTTP_PROXY: 'http://127.0.0.1:9', http_proxy: 'http://127.0.0.1:9' },
    });
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, 'v\n', '']);
    assert.equal(
      endpoint.requestsTo('/v1/kv/get').at(-1)?.headers.authorization,
      `Bearer ${endpoint.token}`,
    );
  });

  void it('an unreachable endpoint: `cannot reach the yacron2 state endpoint at URL: ...`, exit 1', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    server.close();
    await once(server, 'close');
    const url = `http://127.0.0.1:${port}`;
    const result = await runJob(['cursor', 'get', 'w'], {
      env: { YACRON2_STATE_URL: url, YACRON2_STATE_TOKEN: 't' },
    });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      new RegExp(
        `^yacron2 cursor: cannot reach the yacron2 state endpoint at ${url}: .*ECONNREFUSED`,
      ),
    );
  });

  void it('gives up after 30 s without a reply (exit 1)', async () => {
    endpoint.override('/v1/secret/list', 'hang');
    const clock = new FakeClock();
    let settled = false;
    const pending = runJob(['secret', 'list'], { env: endpoint.env, clock }).finally(
      () => (settled = true),
    );
    // The request is on the wire once the endpoint has seen it; then 30 s pass.
    while (endpoint.requestsTo('/v1/secret/list').length === 0)
      await new Promise((r) => setImmediate(r));
    await clock.advance(29_999);
    assert.equal(settled, false);
    await clock.advance(1);
    const result = await pending;
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /cannot reach the yacron2 state endpoint at .*: no reply within 30 s/,
    );
  });

  void it('a 429 (the endpoint is busy for this run) is retried after its Retry-After', async () => {
    endpoint.override(
      '/v1/cursor/get',
      { status: 429, body: { error: 'busy' }, headers: { 'retry-after': '2' } },
      2,
    );
    const clock = new FakeClock();
    const pending = runJob(['cursor', 'get', 'w'], { env: endpoint.env, clock });
    for (const seen of [1, 2]) {
      while (endpoint.requestsTo('/v1/cursor/get').length < seen)
        await new Promise((r) => setImmediate(r));
      // The request's own timer was armed before it reached the endpoint: the next timer is the
      // retry's 2 s sleep, armed when the 429 arrives.
      assert.equal(await clock.nextTimer(), 2000);
      await clock.advance(2000);
    }
    const result = await pending;
    assert.equal(endpoint.requestsTo('/v1/cursor/get').length, 3);
    assert.deepEqual([result.code, result.stderr], [4, 'yacron2 cursor: cursor not set: w\n']);
  });

  void it("an HTTP error prints the body's `error` field, or the status, with exit 1", async () => {
    endpoint.override('/v1/kv/list', {
      status: 503,
      body: { error: 'state backend unavailable: EIO' },
    });
    const unavailable = await runJob(['state', 'keys'], { env: endpoint.env });
    assert.deepEqual(
      [unavailable.code, unavailable.stderr],
      [1, 'yacron2 state: state backend unavailable: EIO\n'],
    );
    endpoint.override('/v1/artifact/list', { status: 502, body: 'Bad Gateway' });
    const bare = await runJob(['artifact', 'list'], { env: endpoint.env });
    assert.deepEqual(
      [bare.code, bare.stderr],
      [1, 'yacron2 artifact: the state endpoint returned HTTP 502\n'],
    );
  });

  void it('a revoked token (401) and a scope not permitted (403) exit 1', async () => {
    const revoked = await runJob(['state', 'get', 'k'], {
      env: { ...endpoint.env, YACRON2_STATE_TOKEN: 'f'.repeat(64) },
    });
    assert.deepEqual([revoked.code, revoked.stderr], [1, 'yacron2 state: Unauthorized\n']);
    const scope = await runJob(['state', 'get', 'k', '--scope', 'payroll'], { env: endpoint.env });
    assert.equal(scope.code, 1);
    assert.match(scope.stderr, /^yacron2 state: scope 'payroll' is not permitted for job 'etl'/);
  });
});

void describe('bin/yacron2.js', () => {
  let endpoint: FakeStateEndpoint;
  before(async () => {
    endpoint = await FakeStateEndpoint.start();
  });
  after(() => endpoint.close());

  void it('runs a job command as a process, with no configuration anywhere', async () => {
    await runJob(['state', 'set', 'n', '{"n": [1, 2]}', '--json'], { env: endpoint.env });
    // spawnSync would block the endpoint living in this process: run it asynchronously.
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [BIN, '-c', '/nonexistent', 'state', 'get', 'n'], {
      env: { ...process.env, ...endpoint.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const [code] = (await once(child, 'close')) as [number];
    assert.deepEqual([code, stdout], [0, '{"n": [1, 2]}\n']);
  });

  void it('keeps the admin actions and the `--` rule of the daemon CLI', () => {
    const admin = spawnSync(process.execPath, [BIN, 'state', 'bogus'], { encoding: 'utf8' });
    assert.equal(admin.status, 2);
    assert.match(admin.stderr, /unknown action 'bogus'/);
    const dashDash = spawnSync(process.execPath, [BIN, '-c', 'x', '--', 'lock', 'run'], {
      encoding: 'utf8',
    });
    assert.equal(dashDash.status, 2);
    assert.match(dashDash.stderr, /`--` is only valid before a `lock run` command/);
  });
});
