// E2E: the built daemon serves the control API on a random TCP port and a unix socket at once;
// start, cancel, runs, status, logs and metrics are driven over real HTTP with bearer auth.
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { startDaemon, useTempDir, writeConfig } from './harness.js';

const TOKEN = 'e2e-secret-token';

interface Reply {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** One request over TCP (`http://host:port`) or a unix socket (`unix:///path`). */
async function call(
  address: string,
  method: string,
  path: string,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
): Promise<Reply> {
  const target = address.startsWith('unix://')
    ? { socketPath: address.slice('unix://'.length) }
    : { host: new URL(address).hostname, port: Number(new URL(address).port) };
  const req = request({ ...target, method, path, headers });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  response.setEncoding('utf8');
  for await (const chunk of response) body += chunk as string;
  return { status: response.statusCode ?? 0, headers: response.headers, body };
}

/** Poll `check` until it yields a value (at most 10 s). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface RunsBody {
  readonly runs: { outcome: string; exit_code: number | null; fail_reason: string | null }[];
}

test(
  'the control API drives start, cancel and runs over TCP and a unix socket',
  { timeout: 60_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const socketPath = join(dir, 'api.sock');
    const config = await writeConfig(
      dir,
      `jobs:
  - name: quick
    command: echo hello from quick
    schedule: "0 0 1 1 *"
    captureStdout: true
  - name: sleeper
    command: echo sleeping && exec sleep 30
    schedule: "0 0 1 1 *"
    captureStdout: true
    killTimeout: 1
  - name: off
    command: "true"
    schedule: "* * * * *"
    enabled: false
web:
  listen:
    - http://127.0.0.1:0
    - unix://${socketPath}
  socketMode: "0600"
  authToken:
    fromEnvVar: YACRON2_E2E_TOKEN
  headers:
    X-Served-By: yacron2-e2e
`,
    );
    const daemon = startDaemon(t, ['-c', config], {
      env: { ...process.env, YACRON2_E2E_TOKEN: TOKEN },
    });
    const tcpLog = await daemon.waitForLog(/^web: started listening on http:\/\/127\.0\.0\.1:\d+$/);
    const tcp = /http:\/\/\S+$/.exec(tcpLog.msg)![0];
    await daemon.waitForLog(/^web: started listening on unix:\/\//);
    const unix = `unix://${socketPath}`;
    assert.equal(statSync(socketPath).mode & 0o777, 0o600);

    // Auth, headers, version, status over both listeners.
    assert.equal((await call(tcp, 'GET', '/status', {})).status, 401);
    assert.equal(
      (await call(unix, 'GET', '/status', { authorization: 'Bearer nope' })).status,
      401,
    );
    const version = await call(tcp, 'GET', '/version');
    assert.equal(version.status, 200);
    assert.match(version.body, /^\d+\.\d+\.\d+/);
    assert.equal(version.headers['x-served-by'], 'yacron2-e2e');
    const status = await call(unix, 'GET', '/status');
    assert.equal(
      status.body,
      'quick: scheduled (in ' +
        /quick: scheduled \(in ([^)]*)\)/.exec(status.body)![1] +
        ')\nsleeper: scheduled (in ' +
        /sleeper: scheduled \(in ([^)]*)\)/.exec(status.body)![1] +
        ')\noff: disabled',
    );

    // Start a quick job over TCP; its run shows up with its output.
    assert.equal((await call(tcp, 'POST', '/jobs/quick/start')).status, 200);
    const quickRuns = await eventually(async () => {
      const runs = JSON.parse((await call(tcp, 'GET', '/jobs/quick/runs')).body) as RunsBody;
      return runs.runs.length === 1 ? runs : undefined;
    }, 'the quick run to be recorded');
    assert.equal(quickRuns.runs[0]?.outcome, 'success');
    const logs = await call(unix, 'GET', '/jobs/quick/logs');
    assert.equal(logs.headers['content-type'], 'text/event-stream');
    assert.equal(
      logs.body,
      'event: line\ndata: {"stream": "stdout", "line": "hello from quick"}\n\nevent: end\ndata: {}\n\n',
    );

    // Start a long job over the unix socket, see it running, cancel it over TCP.
    assert.equal((await call(unix, 'POST', '/jobs/sleeper/start')).status, 200);
    const pid = await eventually(async () => {
      const response = await call(tcp, 'GET', '/status', {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/json',
      });
      const entries = JSON.parse(response.body) as {
        job: string;
        status: string;
        pid?: number[];
      }[];
      const sleeper = entries.find((entry) => entry.job === 'sleeper');
      return sleeper?.status === 'running' && sleeper.pid?.length === 1
        ? sleeper.pid[0]
        : undefined;
    }, 'sleeper to run');
    assert.ok(pid > 0);
    const job = JSON.parse((await call(unix, 'GET', '/jobs/sleeper')).body) as {
      running: boolean;
      pids: number[];
    };
    assert.equal(job.running, true);
    assert.deepEqual(job.pids, [pid]);
    const cancel = await call(tcp, 'POST', '/jobs/sleeper/cancel');
    assert.equal(cancel.status, 200);
    const sleeperRuns = JSON.parse((await call(tcp, 'GET', '/jobs/sleeper/runs')).body) as RunsBody;
    assert.deepEqual(
      sleeperRuns.runs.map((run) => [run.outcome, run.fail_reason]),
      [['cancelled', 'cancelled via web UI']],
    );
    const again = await call(tcp, 'POST', '/jobs/sleeper/cancel');
    assert.equal(again.status, 409);
    assert.equal(again.body, "job 'sleeper' is not running");
    assert.equal(again.headers['x-served-by'], 'yacron2-e2e');

    // Refusals and the other read-only routes.
    const disabled = await call(unix, 'POST', '/jobs/off/start');
    assert.equal(disabled.status, 409);
    assert.equal(disabled.body, "job 'off' is disabled");
    assert.equal((await call(tcp, 'POST', '/jobs/nope/start')).status, 404);
    assert.equal((await call(tcp, 'GET', '/jobs/quick/start')).status, 405);
    const jobs = JSON.parse((await call(tcp, 'GET', '/jobs')).body) as { name: string }[];
    assert.deepEqual(
      jobs.map((entry) => entry.name),
      ['quick', 'sleeper', 'off'],
    );
    assert.deepEqual(JSON.parse((await call(unix, 'GET', '/cluster')).body), {
      enabled: false,
      peers: [],
    });
    const metrics = await call(tcp, 'GET', '/metrics');
    assert.equal(metrics.status, 200);
    assert.equal(metrics.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(metrics.body, /^yacron2_job_runs_total\{job_name="quick"[^}]*\} 1$/m);
    const page = await call(tcp, 'GET', '/', {});
    assert.equal(page.status, 200);
    assert.equal(page.headers['x-frame-options'], 'DENY');

    // Shutdown closes the listeners and removes the socket file.
    assert.equal(await daemon.stop(), 0);
    assert.equal(existsSync(socketPath), false);
    await assert.rejects(call(tcp, 'GET', '/version'));
  },
);
