// The DAG routes over a real engine and a memory store, through inject(): the list and its
// roll-ups, run summaries and documents, the XCom listing, the task log stream (over a loopback
// listener), the error table of the POSTs, and the cancel route (a yacron2 addition).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock, flushMicrotasks } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { DagEngine } from '../dags/index.js';
import { makeDag } from '../dags/testing.js';
import { makeSchedule } from '../config/testing.js';
import { FakeRunner } from '../scheduler/testing.js';
import { MemoryStateStore, artifactStream, dagXcomScope, type StateStore } from '../state/index.js';
import {
  createApiFixture,
  listenOnLoopback,
  openStream,
  T0,
  type ApiFixture,
} from './http-fixture.test.js';

interface DagWorld {
  readonly api: ApiFixture;
  readonly engine: DagEngine;
  readonly runner: FakeRunner;
  readonly store: StateStore;
  settle(): Promise<void>;
  /** Let every attempt succeed, then close the engine and the API. */
  finish(): Promise<void>;
}

async function dagWorld(
  options: { store?: boolean; web?: { authToken: string } } = {},
): Promise<DagWorld> {
  const clock = new FakeClock(T0);
  const store = new MemoryStateStore({ clock });
  await store.open();
  const runner = new FakeRunner({ clock });
  let drawn = 0;
  const schedule = makeSchedule('0 * * * *', 'UTC');
  assert.ok(schedule.kind === 'cron');
  const engine = new DagEngine(
    {
      clock,
      logger: silentLogger(),
      host: 'h',
      processToken: 'aaaaaaaaaaaa',
      runner,
      runEnvironment: () => null,
      endRun: () => undefined,
      store: () => (options.store === false ? null : store),
      isPidAlive: () => false,
      random: () => 0,
      randomBytes: (size) => new Uint8Array(size).fill((drawn += 1)),
      mayCreateScheduledRuns: () => true,
    },
    [
      makeDag('etl', [
        { id: 'a' },
        { id: 'gate', kind: 'approval', dependsOn: ['a'] },
        { id: 'm', dependsOn: ['a'], expand: { fromTask: 'a', key: 'k' } },
      ]),
      makeDag('hourly', [{ id: 'only' }], { schedule, enabled: false }),
    ],
  );
  const api = await createApiFixture([], {
    dags: () => engine,
    ...(options.web === undefined ? {} : { web: options.web }),
  });
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 10; i += 1) {
      await clock.advance(0);
      await flushMicrotasks(50);
    }
  };
  return {
    api,
    engine,
    runner,
    store,
    settle,
    async finish() {
      while (runner.running().length > 0) {
        for (const run of runner.running()) run.succeed();
        await settle();
      }
      await engine.close();
      await api.close();
    },
  };
}

async function call(
  api: ApiFixture,
  method: 'GET' | 'POST',
  url: string,
  payload?: string,
  headers: Record<string, string> = {},
) {
  const response = await api.app.inject({
    method,
    url,
    headers: {
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(payload === undefined ? {} : { payload }),
  });
  return {
    status: response.statusCode,
    retryAfter: response.headers['retry-after'],
    body: response.body,
    json: () => JSON.parse(response.body) as unknown,
  };
}

void test('GET /dags lists every DAG in config order, with roll-ups once runs exist', async () => {
  const w = await dagWorld();
  const before = (await call(w.api, 'GET', '/dags')).json() as Record<string, unknown>[];
  assert.deepEqual(
    before.map((dag) => [
      dag['name'],
      dag['scheduled'],
      dag['schedule'],
      dag['timezone'],
      dag['totalRuns'],
    ]),
    [
      ['etl', false, undefined, undefined, undefined],
      ['hourly', true, '0 * * * *', 'UTC', undefined],
    ],
  );
  assert.deepEqual((before[0]!['tasks'] as unknown[])[2], {
    id: 'm',
    type: 'task',
    dependsOn: ['a'],
    triggerRule: 'all_success',
    retries: 0,
    mapped: true,
  });
  const trigger = await call(w.api, 'POST', '/dags/etl/trigger');
  assert.equal(trigger.status, 200);
  const { runKey } = trigger.json() as { runKey: string };
  await w.settle();
  const after = (await call(w.api, 'GET', '/dags')).json() as Record<string, unknown>[];
  assert.equal(after[0]!['totalRuns'], 1);
  assert.deepEqual(after[0]!['runCounts'], { running: 1 });
  assert.equal((after[0]!['latestRun'] as { runKey: string }).runKey, runKey);
  await w.finish();
});

void test('runs, a run document, its XCom; 404s for unknown DAGs and runs', async () => {
  const w = await dagWorld();
  const { runKey } = (await call(w.api, 'POST', '/dags/etl/trigger')).json() as { runKey: string };
  await w.settle();
  const runs = (await call(w.api, 'GET', '/dags/etl/runs?limit=abc')).json() as {
    dag: string;
    runs: Record<string, unknown>[];
  };
  assert.equal(runs.dag, 'etl');
  assert.deepEqual(
    runs.runs.map((run) => [run['runKey'], run['state'], run['kind'], run['logicalDate']]),
    [[runKey, 'running', 'manual', null]],
  );
  assert.deepEqual(runs.runs[0]!['taskStates'], { running: 1, pending: 2 });
  const doc = (await call(w.api, 'GET', `/dags/etl/runs/${runKey}`)).json() as {
    runId: string;
    tasks: Record<string, { state: string }>;
  };
  assert.equal(doc.tasks['a']?.state, 'running');
  const scope = artifactStream(dagXcomScope('etl', doc.runId));
  const put = async (name: string, bytes: Buffer): Promise<void> => {
    const sha256 = await w.store.putBlob(bytes);
    await w.store.append(scope, { name, sha256, size: bytes.length, at: 1 });
  };
  await put('a/k', Buffer.from('["x"]'));
  await put('a/bin', Buffer.from([0xff, 0xfe]));
  await put('a/big', Buffer.alloc(70_000, 65));
  const xcom = (await call(w.api, 'GET', `/dags/etl/runs/${runKey}/xcom`)).json() as {
    entries: Record<string, unknown>[];
    truncated: boolean;
  };
  assert.equal(xcom.truncated, false);
  assert.deepEqual(
    xcom.entries.map((entry) => [
      entry['taskkey'],
      entry['key'],
      entry['value'],
      entry['binary'],
      entry['oversize'],
    ]),
    [
      ['a', 'big', undefined, undefined, true],
      ['a', 'bin', undefined, true, undefined],
      ['a', 'k', '["x"]', undefined, undefined],
    ],
  );
  for (const url of [
    '/dags/nope/runs',
    '/dags/etl/runs/nope',
    '/dags/nope/runs/x/xcom',
    '/dags/etl/runs/nope/xcom',
  ]) {
    assert.equal((await call(w.api, 'GET', url)).status, 404, url);
  }
  assert.equal((await call(w.api, 'POST', '/dags/nope/trigger')).status, 404);
  await w.finish();
});

void test('backfill: the 400 table, then runs for each instant, counted again on a repeat', async () => {
  const w = await dagWorld();
  const cases: [string, string | undefined][] = [
    ['/dags/hourly/backfill', 'not json'],
    ['/dags/hourly/backfill', '[1]'],
    ['/dags/hourly/backfill', undefined],
    ['/dags/hourly/backfill', '{"from": 1, "to": "2026-01-01"}'],
    ['/dags/hourly/backfill', '{"from": "yesterday", "to": "2026-01-01"}'],
    ['/dags/hourly/backfill', '{"from": "2026-01-02", "to": "2026-01-01"}'],
    ['/dags/nope/backfill', '{"from": "2026-01-01", "to": "2026-01-01"}'],
    ['/dags/etl/backfill', '{"from": "2026-01-01", "to": "2026-01-01"}'],
  ];
  for (const [url, payload] of cases) {
    assert.equal((await call(w.api, 'POST', url, payload)).status, 400, `${url} ${payload}`);
  }
  const window = '{"from": "2026-01-01T00:00:00-05:00", "to": "2026-01-01T07:30"}';
  assert.deepEqual((await call(w.api, 'POST', '/dags/hourly/backfill', window)).json(), {
    ok: true,
    created: 3,
  });
  assert.deepEqual((await call(w.api, 'POST', '/dags/hourly/backfill', window)).json(), {
    ok: true,
    created: 3,
  });
  await w.settle();
  const runs = (await call(w.api, 'GET', '/dags/hourly/runs')).json() as {
    runs: { runKey: string }[];
  };
  assert.deepEqual(runs.runs.map((run) => run.runKey).sort(), [
    '2026-01-01T05:00:00_00:00',
    '2026-01-01T06:00:00_00:00',
    '2026-01-01T07:00:00_00:00',
  ]);
  await w.finish();
});

void test('decision: 400 for a bad value or body, 409 with the reason for every other refusal', async () => {
  const w = await dagWorld();
  const { runKey } = (await call(w.api, 'POST', '/dags/etl/trigger')).json() as { runKey: string };
  await w.settle();
  const url = (dag: string, key: string, task: string): string =>
    `/dags/${dag}/runs/${key}/tasks/${task}/decision`;
  assert.equal(
    (await call(w.api, 'POST', url('etl', runKey, 'gate'), '{"decision": "yes"}')).status,
    400,
  );
  assert.equal((await call(w.api, 'POST', url('etl', runKey, 'gate'), 'nope')).status, 400);
  assert.equal((await call(w.api, 'POST', url('etl', runKey, 'gate'))).status, 400);
  for (const [dag, key, task] of [
    ['nope', runKey, 'gate'],
    ['etl', 'manual-nope', 'gate'],
    ['etl', runKey, 'zz'],
    ['etl', runKey, 'gate'],
  ] as const) {
    const refused = await call(w.api, 'POST', url(dag, key, task), '{"decision": "approve"}');
    assert.equal(refused.status, 409, `${dag} ${key} ${task}`);
    assert.ok(refused.body.length > 0);
  }
  w.runner.last('etl.a').succeed();
  await w.settle();
  const approved = await call(
    w.api,
    'POST',
    url('etl', runKey, 'gate'),
    '{"decision": "approve", "by": "ops"}',
  );
  assert.deepEqual(approved.json(), { ok: true, state: 'success' });
  await w.finish();
});

void test('decision: a by over 200 characters, with control characters or not a string is a 400 naming it', async () => {
  const w = await dagWorld();
  const { runKey } = (await call(w.api, 'POST', '/dags/etl/trigger')).json() as { runKey: string };
  await w.settle();
  w.runner.last('etl.a').succeed();
  await w.settle();
  const url = `/dags/etl/runs/${runKey}/tasks/gate/decision`;
  const cases: [unknown, string][] = [
    ['x'.repeat(65_000), "'by' is 65000 characters, over the limit of 200"],
    ['ops\nforged line', "'by' holds the control or formatting character U+000A at 3"],
    ['\u001b[31mred', "'by' holds the control or formatting character U+001B at 0"],
    ['abc\u202e', "'by' holds the control or formatting character U+202E at 3"],
    [42, "'by' must be a string"],
  ];
  for (const [by, reason] of cases) {
    const refused = await call(w.api, 'POST', url, JSON.stringify({ decision: 'approve', by }));
    assert.deepEqual([refused.status, refused.body], [400, reason]);
  }
  const run = (await call(w.api, 'GET', `/dags/etl/runs/${runKey}`)).json() as {
    tasks: Record<string, { awaitingApproval?: boolean }>;
  };
  assert.equal(run.tasks['gate']?.awaitingApproval, true, 'no refused decision was recorded');
  const approved = await call(w.api, 'POST', url, '{"decision": "approve", "by": null}');
  assert.deepEqual(approved.json(), { ok: true, state: 'success' });
  const decided = (await call(w.api, 'GET', `/dags/etl/runs/${runKey}`)).json() as {
    tasks: Record<string, { approval?: { by: string } }>;
  };
  assert.equal(decided.tasks['gate']?.approval?.by, 'api');
  await w.finish();
});

void test('cancel: 200 ends a running run and stops its attempt; 404, 409 once ended, 400 for a bad body', async () => {
  const w = await dagWorld();
  const { runKey } = (await call(w.api, 'POST', '/dags/etl/trigger')).json() as { runKey: string };
  await w.settle();
  const attempt = w.runner.last('etl.a');
  const url = `/dags/etl/runs/${runKey}/cancel`;
  assert.deepEqual(
    [(await call(w.api, 'POST', url, '[1]')).status, (await call(w.api, 'POST', url, 'x')).body],
    [400, 'the body must be a JSON object'],
  );
  assert.equal((await call(w.api, 'POST', url, '{"by": "a\\u0007"}')).status, 400);
  assert.equal((await call(w.api, 'POST', '/dags/nope/runs/x/cancel')).status, 404);
  assert.equal((await call(w.api, 'POST', '/dags/etl/runs/manual-nope/cancel')).status, 404);
  assert.equal((await call(w.api, 'GET', url)).status, 405);
  const cancelled = await call(w.api, 'POST', url, '{"by": "ops"}');
  assert.deepEqual(cancelled.json(), { ok: true, dag: 'etl', runKey, state: 'failed' });
  await w.settle();
  assert.deepEqual(attempt.cancels, ['cancelled']);
  const run = (await call(w.api, 'GET', `/dags/etl/runs/${runKey}`)).json() as {
    state: string;
    ended: { kind: string; by: string };
    tasks: Record<string, { state: string; failReason: string | null }>;
  };
  assert.deepEqual([run.state, run.ended.kind, run.ended.by], ['failed', 'cancelled', 'ops']);
  assert.deepEqual(run.tasks['a'], {
    ...run.tasks['a'],
    state: 'failed',
    failReason: 'the run was cancelled by ops',
  });
  const again = await call(w.api, 'POST', url);
  assert.equal(again.status, 409);
  assert.equal(
    again.body,
    `Cannot cancel run '${runKey}' of DAG 'etl': it has already ended (failed)`,
  );
  await w.finish();
});

void test('cancel is authorised like the other DAG POSTs: the bearer token', async () => {
  const w = await dagWorld({ web: { authToken: 'sesame' } });
  const bearer = { authorization: 'Bearer sesame' };
  const trigger = await call(w.api, 'POST', '/dags/etl/trigger', undefined, bearer);
  const { runKey } = trigger.json() as { runKey: string };
  await w.settle();
  const url = `/dags/etl/runs/${runKey}/cancel`;
  assert.equal((await call(w.api, 'POST', url)).status, 401);
  assert.equal(
    (await call(w.api, 'POST', url, undefined, { authorization: 'Bearer nope' })).status,
    401,
  );
  const read = async (): Promise<unknown> =>
    (
      (await call(w.api, 'GET', `/dags/etl/runs/${runKey}`, undefined, bearer)).json() as {
        state: string;
      }
    ).state;
  assert.equal(await read(), 'running', 'a refused cancel changes nothing');
  assert.equal((await call(w.api, 'POST', url, undefined, bearer)).status, 200);
  assert.equal(await read(), 'failed');
  await w.finish();
});

void test('before the store opens: the list has no roll-ups, every store route is a 503 with Retry-After', async () => {
  const w = await dagWorld({ store: false });
  const list = (await call(w.api, 'GET', '/dags')).json() as Record<string, unknown>[];
  assert.equal(list.length, 2);
  assert.equal(list[0]!['totalRuns'], undefined);
  const calls: ['GET' | 'POST', string, string?][] = [
    ['GET', '/dags/etl/runs'],
    ['GET', '/dags/etl/runs/x'],
    ['GET', '/dags/etl/runs/x/xcom'],
    ['POST', '/dags/etl/trigger'],
    ['POST', '/dags/hourly/backfill', '{"from": "2026-01-01", "to": "2026-01-01T02:00"}'],
    ['POST', '/dags/etl/runs/x/tasks/gate/decision', '{"decision": "approve"}'],
    ['POST', '/dags/etl/runs/x/cancel'],
  ];
  for (const [method, url, payload] of calls) {
    const response = await call(w.api, method, url, payload);
    assert.equal(response.status, 503, url);
    assert.equal(response.retryAfter, '5', url);
    assert.deepEqual(response.json(), {
      error: 'Service Unavailable',
      message: 'Cannot reach the DAG runs: the state store is not open yet',
    });
  }
  // The checks that need no store still come first.
  assert.equal((await call(w.api, 'POST', '/dags/nope/trigger')).status, 404);
  assert.equal((await call(w.api, 'GET', '/dags/nope/runs')).status, 404);
  assert.equal((await call(w.api, 'POST', '/dags/etl/backfill', '{}')).status, 400);
  await w.finish();
  const none = await createApiFixture([]);
  assert.equal((await none.app.inject({ url: '/dags' })).body, '[]');
  assert.equal((await none.app.inject({ url: '/dags/etl/runs' })).statusCode, 404);
  await none.close();
});

void test('a store error on a write is a 500 (trigger, backfill), a 409 on a decision', async () => {
  const w = await dagWorld();
  await w.store.close();
  const trigger = await call(w.api, 'POST', '/dags/etl/trigger');
  assert.equal(trigger.status, 500);
  assert.match(trigger.body, /cannot create the run/);
  const backfill = await call(
    w.api,
    'POST',
    '/dags/hourly/backfill',
    '{"from": "2026-01-01", "to": "2026-01-01"}',
  );
  assert.equal(backfill.status, 500);
  const decision = await call(
    w.api,
    'POST',
    '/dags/etl/runs/x/tasks/gate/decision',
    '{"decision": "approve"}',
  );
  assert.equal(decision.status, 409);
  await w.engine.close();
  await w.api.close();
});

const NO_OUTPUT_END = 'event: end\ndata: {"reason": "no-output"}\n\n';
const logLine = (stream: string, text: string): string =>
  `event: line\ndata: {"stream": "${stream}", "line": "${text}"}\n\n`;

void test('task logs: replay of a running attempt, its live lines, then end', async () => {
  const w = await dagWorld();
  const base = await listenOnLoopback(w.api.app);
  const { runKey } = (await call(w.api, 'POST', '/dags/etl/trigger')).json() as { runKey: string };
  await w.settle();
  const attempt = w.runner.last('etl.a');
  attempt.emitOutput('stdout', 'first\n');
  attempt.emitOutput('stderr', 'warn "x"\n');
  const stream = await openStream(`${base}/dags/etl/runs/${runKey}/tasks/a/logs`);
  assert.equal(stream.status, 200);
  assert.equal(stream.headers['content-type'], 'text/event-stream');
  await stream.waitFor('x\\"');
  attempt.emitOutput('stdout', 'live');
  await stream.waitFor('live');
  attempt.succeed();
  assert.equal(
    await stream.ended(),
    logLine('stdout', 'first') +
      logLine('stderr', 'warn \\"x\\"') +
      logLine('stdout', 'live') +
      'event: end\ndata: {}\n\n',
  );
  await w.settle();
  // The attempt is over: its buffer went with it.
  const after = await openStream(`${base}/dags/etl/runs/${runKey}/tasks/a/logs`);
  assert.equal(await after.ended(), NO_OUTPUT_END);
  await w.finish();
});

void test('task logs: no-output for anything not running here, 404 for an unknown DAG', async () => {
  const w = await dagWorld();
  const base = await listenOnLoopback(w.api.app);
  const { runKey } = (await call(w.api, 'POST', '/dags/etl/trigger')).json() as { runKey: string };
  await w.settle();
  for (const path of [
    `/dags/etl/runs/${runKey}/tasks/gate/logs`, // pending approval gate
    `/dags/etl/runs/${runKey}/tasks/zz/logs`, // unknown task
    '/dags/etl/runs/nope/tasks/a/logs', // unknown run
    '/dags/hourly/runs/x/tasks/only/logs',
  ]) {
    const stream = await openStream(`${base}${path}`);
    assert.equal(stream.status, 200, path);
    assert.equal(await stream.ended(), NO_OUTPUT_END, path);
  }
  const unknown = await w.api.app.inject({ url: `/dags/zz/runs/${runKey}/tasks/a/logs` });
  assert.equal(unknown.statusCode, 404);
  await w.finish();
  const none = await createApiFixture([]);
  assert.equal((await none.app.inject({ url: '/dags/etl/runs/x/tasks/a/logs' })).statusCode, 404);
  await none.close();
});
