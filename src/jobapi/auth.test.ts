import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { send, startFixture, T0, withFixture } from './job-api-fixture.test.js';

void describe('job API: per-run bearer tokens (docs/http-api.md "The job API")', () => {
  void test('runEnvironment hands a run the B.2 variables: URL, a 64-hex token, run id, job, attempt, slot, host', () =>
    withFixture('memory', ({ api, startRun }) => {
      const run = startRun({ name: 'etl' }, { runId: 'ab'.repeat(16), attempt: 2 });
      assert.deepEqual(Object.keys(run.env).sort(), [
        'YACRON2_ATTEMPT',
        'YACRON2_HOST',
        'YACRON2_JOB_NAME',
        'YACRON2_RUN_ID',
        'YACRON2_SCHEDULED_AT',
        'YACRON2_STATE_TOKEN',
        'YACRON2_STATE_URL',
      ]);
      assert.match(api.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(run.env['YACRON2_STATE_URL'], api.url);
      assert.match(run.token, /^[0-9a-f]{64}$/);
      assert.equal(run.env['YACRON2_RUN_ID'], 'ab'.repeat(16));
      assert.equal(run.env['YACRON2_JOB_NAME'], 'etl');
      assert.equal(run.env['YACRON2_ATTEMPT'], '2');
      assert.equal(run.env['YACRON2_SCHEDULED_AT'], '2026-06-21T12:00:00+00:00');
      assert.equal(run.env['YACRON2_HOST'], 'test-host');
      const manual = startRun({}, { scheduledAtMs: null, trigger: 'manual' });
      assert.equal(manual.env['YACRON2_SCHEDULED_AT'], '');
      assert.notEqual(manual.token, run.token);
      return Promise.resolve();
    }));

  void test('GET /v1/run describes the calling run', () =>
    withFixture('memory', async ({ startRun }) => {
      const run = startRun({ name: 'etl' }, { attempt: 1, scheduledAtMs: T0 + 123.456 });
      const reply = await run.get('/v1/run');
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.json(), {
        runId: run.runId,
        job: 'etl',
        attempt: 1,
        scheduledAt: '2026-06-21T12:00:00.123456+00:00',
        host: 'test-host',
        defaultScope: 'etl',
      });
      const manual = startRun({}, { scheduledAtMs: null });
      assert.equal((await manual.get('/v1/run')).json().scheduledAt, null);
    }));

  void test('a missing, malformed or unknown token is 401 with a plain framework body', () =>
    withFixture('memory', async ({ api, startRun }) => {
      const run = startRun();
      const wrong = run.token.replace(/.$/, (last) => (last === '0' ? '1' : '0'));
      for (const authorization of [
        null,
        '',
        'Bearer',
        `Basic ${run.token}`,
        `Bearer ${wrong}`,
        `Bearer ${run.token.toUpperCase()}`,
        `Bearer  ${run.token}`,
        `Bearer ${run.token}x`,
      ]) {
        const reply = await send(api.url, '/v1/run', run.token, { authorization });
        assert.equal(reply.status, 401, `Authorization: ${String(authorization)}`);
        assert.equal(reply.text, '401: Unauthorized');
        assert.match(reply.headers.get('content-type') ?? '', /^text\/plain/);
      }
    }));

  void test('the scheme is matched case-insensitively', () =>
    withFixture('memory', async ({ api, startRun }) => {
      const run = startRun();
      for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
        const reply = await send(api.url, '/v1/run', run.token, {
          authorization: `${scheme} ${run.token}`,
        });
        assert.equal(reply.status, 200);
      }
    }));

  void test('a token stops working the instant runEnded is called', () =>
    withFixture('memory', async ({ api, startRun }) => {
      const run = startRun();
      const other = startRun();
      assert.equal((await run.get('/v1/run')).status, 200);
      api.runEnded(run.runId);
      assert.equal((await run.get('/v1/run')).status, 401);
      assert.equal((await run.post('/v1/kv/set', { key: 'k', value: 1 })).status, 401);
      assert.equal((await other.get('/v1/run')).status, 200, 'other runs are untouched');
      api.runEnded(run.runId); // a second call is harmless
      api.runEnded('0'.repeat(32)); // so is an unknown run
    }));

  void test('unauthenticated requests are refused before the store is touched or the body read', () =>
    withFixture('memory', async ({ api, startRun, observed }) => {
      const run = startRun();
      const reply = await send(api.url, '/v1/kv/set', run.token, {
        method: 'POST',
        authorization: 'Bearer nope',
        body: JSON.stringify({ key: 'k', value: 1 }),
      });
      assert.equal(reply.status, 401);
      const unknown = await send(api.url, '/v1/nope', run.token, { authorization: null });
      assert.equal(unknown.status, 401, 'auth comes before routing');
      assert.deepEqual(observed.calls, []);
    }));

  void test('an unknown path is a plain 404 and a wrong method a plain 405', () =>
    withFixture('memory', async ({ startRun }) => {
      const run = startRun();
      const missing = await run.get('/v1/kv/nope');
      assert.equal(missing.status, 404);
      assert.equal(missing.text, '404: Not Found');
      const wrongMethod = await run.request('/v1/kv/set');
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.text, '405: Method Not Allowed');
      assert.equal(wrongMethod.headers.get('allow'), 'POST');
      assert.equal((await run.post('/v1/kv/get', { key: 'k' })).status, 405);
    }));

  void test('every GET route answers HEAD', () =>
    withFixture('memory', async ({ startRun }) => {
      const run = startRun();
      const head = await run.request('/v1/run', { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.match(head.headers.get('content-type') ?? '', /^application\/json/);
    }));

  void test('close() revokes every token, and runEnvironment after it injects nothing', async () => {
    const fixture = await startFixture('memory');
    const run = fixture.startRun();
    assert.equal((await run.get('/v1/run')).status, 200);
    await fixture.close();
    await assert.rejects(run.get('/v1/run'), 'the port is closed');
    assert.deepEqual(fixture.startRun().env, {});
    await fixture.api.close(); // idempotent
  });
});
