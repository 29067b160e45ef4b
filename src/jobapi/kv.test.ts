import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STORE_KINDS, withFixture } from './job-api-fixture.test.js';

for (const kind of STORE_KINDS) {
  void describe(`job API /v1/kv over ${kind === 'fs' ? 'FsStateStore' : 'MemoryStateStore'}`, () => {
    void test('set then get returns the value and its updatedAt in epoch seconds', () =>
      withFixture(kind, async ({ startRun, clock }) => {
        const run = startRun();
        const set = await run.post('/v1/kv/set', { key: 'last-cursor', value: 12345 });
        assert.equal(set.status, 200);
        assert.match(set.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
        assert.deepEqual(set.json(), { ok: true, updatedAt: clock.now() / 1000 });
        const get = await run.get('/v1/kv/get', { key: 'last-cursor' });
        assert.equal(get.status, 200);
        assert.deepEqual(get.json(), { value: 12345, updatedAt: clock.now() / 1000 });
      }));

    void test('any JSON value round-trips, and a stored null is a 200 with value null', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        const values = [null, 'text', 0, -1.5, true, [1, 'a'], { n: 3, nested: { ok: false } }];
        for (const [index, value] of values.entries()) {
          assert.equal((await run.post('/v1/kv/set', { key: `k${index}`, value })).status, 200);
          const get = await run.get('/v1/kv/get', { key: `k${index}` });
          assert.equal(get.status, 200);
          assert.deepEqual(get.json().value, value);
        }
      }));

    void test('get of an absent key is 404 with an empty body', () =>
      withFixture(kind, async ({ startRun }) => {
        const get = await startRun().get('/v1/kv/get', { key: 'nope' });
        assert.equal(get.status, 404);
        assert.equal(get.text, '');
      }));

    void test('the last write wins', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        await run.post('/v1/kv/set', { key: 'k', value: 1 });
        await run.post('/v1/kv/set', { key: 'k', value: 2 });
        assert.equal((await run.get('/v1/kv/get', { key: 'k' })).json().value, 2);
      }));

    void test('delete says whether the key existed', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        await run.post('/v1/kv/set', { key: 'k', value: 1 });
        assert.deepEqual((await run.post('/v1/kv/delete', { key: 'k' })).json(), { existed: true });
        assert.deepEqual((await run.post('/v1/kv/delete', { key: 'k' })).json(), {
          existed: false,
        });
        assert.equal((await run.get('/v1/kv/get', { key: 'k' })).status, 404);
      }));

    void test('list returns the scope and its keys with values, sorted by key', () =>
      withFixture(kind, async ({ startRun, clock }) => {
        const run = startRun();
        for (const key of ['b', 'a/x', 'A', 'c%2F']) {
          await run.post('/v1/kv/set', { key, value: key.length });
        }
        const list = await run.get('/v1/kv/list');
        const at = clock.now() / 1000;
        assert.deepEqual(list.json(), {
          scope: 'etl',
          keys: [
            { key: 'A', value: 1, updatedAt: at },
            { key: 'a/x', value: 3, updatedAt: at },
            { key: 'b', value: 1, updatedAt: at },
            { key: 'c%2F', value: 4, updatedAt: at },
          ],
        });
      }));

    void test("a key with slashes stays in its scope: job 'a' cannot reach job 'a/b' as key 'b/x'", () =>
      withFixture(kind, async ({ startRun }) => {
        const deep = startRun({ name: 'a/b' });
        await deep.post('/v1/kv/set', { key: 'x', value: 'private' });
        const shallow = startRun({ name: 'a' });
        assert.equal((await shallow.get('/v1/kv/get', { key: 'b/x' })).status, 404);
        await shallow.post('/v1/kv/set', { key: 'b/x', value: 'mine' });
        assert.equal((await deep.get('/v1/kv/get', { key: 'x' })).json().value, 'private');
        assert.deepEqual(
          (await shallow.get('/v1/kv/list')).json().keys.map((entry: { key: string }) => entry.key),
          ['b/x'],
        );
        assert.deepEqual(
          (await deep.get('/v1/kv/list')).json().keys.map((entry: { key: string }) => entry.key),
          ['x'],
        );
      }));

    void test('keys live in the store as reference documents: namespace kv/<scope>, body {key, updatedAt, value}', () =>
      withFixture(kind, async ({ startRun, inner, clock }) => {
        await startRun().post('/v1/kv/set', { key: 'plain', value: { n: 1 } });
        assert.deepEqual((await inner.getDocument('kv/etl', 'plain'))?.body, {
          key: 'plain',
          updatedAt: clock.now() / 1000,
          value: { n: 1 },
        });
      }));

    void test('the default scope is the job name; global and stateAllowedScopes may be named', () =>
      withFixture(kind, async ({ startRun }) => {
        const writer = startRun({ name: 'writer' });
        await writer.post('/v1/kv/set', { key: 'k', value: 'own' });
        await writer.post('/v1/kv/set', { scope: 'global', key: 'k', value: 'shared' });
        const reader = startRun({ name: 'reader', stateAllowedScopes: ['writer'] });
        assert.equal((await reader.get('/v1/kv/get', { key: 'k' })).status, 404);
        assert.equal(
          (await reader.get('/v1/kv/get', { scope: 'global', key: 'k' })).json().value,
          'shared',
        );
        assert.equal(
          (await reader.get('/v1/kv/get', { scope: 'writer', key: 'k' })).json().value,
          'own',
        );
        assert.equal((await writer.get('/v1/kv/get', { scope: '', key: 'k' })).json().value, 'own');
      }));

    void test("another job's scope is 403 with the reason", () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun({ name: 'reader' });
        for (const reply of [
          await run.get('/v1/kv/get', { scope: 'writer', key: 'k' }),
          await run.post('/v1/kv/set', { scope: 'writer', key: 'k', value: 1 }),
          await run.get('/v1/kv/list', { scope: 'writer' }),
        ]) {
          assert.equal(reply.status, 403);
          assert.deepEqual(reply.json(), {
            error:
              "scope 'writer' is not permitted for job 'reader'; add it to stateAllowedScopes to allow it",
          });
        }
      }));

    void test('a value nested deeper than 128 levels is a 400, not a 500 with a stack in the log', () =>
      withFixture(kind, async ({ startRun, logger }) => {
        const run = startRun();
        const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
        const deep = await run.post('/v1/kv/set', `{"key": "k", "value": ${nested(20_000)}}`);
        assert.equal(deep.status, 400);
        assert.deepEqual(deep.json(), { error: 'request body nests deeper than 128 levels' });
        assert.deepEqual(logger.at('error'), []);
        // The body object is level 1: a value of 127 levels is the deepest accepted.
        const ok = await run.post('/v1/kv/set', `{"key": "k", "value": ${nested(127)}}`);
        assert.equal(ok.status, 200);
        const over = await run.post('/v1/kv/set', `{"key": "k", "value": ${nested(128)}}`);
        assert.equal(over.status, 400);
      }));

    void test('a value over maxValueBytes (compact JSON) is 413; one at the limit is stored', () =>
      withFixture(
        kind,
        async ({ startRun }) => {
          const run = startRun();
          const atLimit = 'x'.repeat(98); // "xxx…" is 100 bytes of JSON
          assert.equal((await run.post('/v1/kv/set', { key: 'k', value: atLimit })).status, 200);
          const over = await run.post('/v1/kv/set', { key: 'k', value: `${atLimit}y` });
          assert.equal(over.status, 413);
          assert.deepEqual(over.json(), {
            error: 'value is 101 bytes, over the maxValueBytes limit of 100',
          });
          assert.equal((await run.get('/v1/kv/get', { key: 'k' })).json().value, atLimit);
        },
        { settings: { maxValueBytes: 100 } },
      ));

    void test('maxValueBytes null (0 in the config) stores any size', () =>
      withFixture(
        kind,
        async ({ startRun }) => {
          const run = startRun();
          const big = 'x'.repeat(300_000);
          assert.equal((await run.post('/v1/kv/set', { key: 'k', value: big })).status, 200);
          assert.equal((await run.get('/v1/kv/get', { key: 'k' })).json().value.length, 300_000);
        },
        { settings: { maxValueBytes: null } },
      ));

    void test('bodies that are not JSON objects, and missing fields, are 400 with the reason', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        const cases: [string, unknown, string][] = [
          ['/v1/kv/set', '{"key": "k", "value": ', 'request body is not valid JSON'],
          ['/v1/kv/set', '', 'request body is not valid JSON'],
          ['/v1/kv/set', [1, 2], 'request body must be a JSON object'],
          ['/v1/kv/set', { value: 1 }, 'key is required'],
          ['/v1/kv/set', { key: '', value: 1 }, 'key is required'],
          ['/v1/kv/set', { key: 'k' }, 'value is required'],
          ['/v1/kv/set', { key: 7, value: 1 }, 'key must be a string'],
          ['/v1/kv/delete', {}, 'key is required'],
        ];
        for (const [route, body, error] of cases) {
          const reply = await run.post(route, body);
          assert.equal(reply.status, 400, `${route} ${JSON.stringify(body)}`);
          assert.deepEqual(reply.json(), { error });
        }
        const get = await run.get('/v1/kv/get');
        assert.equal(get.status, 400);
        assert.deepEqual(get.json(), { error: 'key is required' });
      }));

    void test('values that are not portable JSON are 400', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        const infinite = await run.post('/v1/kv/set', '{"key": "k", "value": 1e999}');
        assert.equal(infinite.status, 400);
        assert.match(infinite.json().error, /not portable/);
        const huge = await run.post(
          '/v1/kv/set',
          '{"key": "k", "value": [1, 99999999999999999999]}',
        );
        assert.equal(huge.status, 400);
        assert.match(huge.json().error, /64-bit/);
        const int64 = await run.post('/v1/kv/set', '{"key": "k", "value": 9223372036854775807}');
        assert.equal(int64.status, 200);
        const bigFloat = await run.post('/v1/kv/set', '{"key": "k", "value": 1e300}');
        assert.equal(bigFloat.status, 200);
      }));

    void test('hostile key and scope names are refused at the edge with 400', () =>
      withFixture(kind, async ({ startRun, observed }) => {
        const run = startRun({ name: 'etl', stateAllowedScopes: ['../etc', 'a\0b'] });
        const before = observed.calls.length;
        const cases: [Record<string, string>, string][] = [
          [{ key: '../../etc/passwd' }, "key must not contain a '..' path segment"],
          [{ key: 'a/../b' }, "key must not contain a '..' path segment"],
          [{ key: '..' }, "key must not contain a '..' path segment"],
          [{ key: '/abs' }, "key must not start with '/'"],
          [{ key: 'nul\0byte' }, 'key must not contain NUL bytes'],
          [{ key: 'x'.repeat(4097) }, 'key is longer than 4096 characters'],
          [{ key: 'k', scope: '../etc' }, "scope must not contain a '..' path segment"],
          [{ key: 'k', scope: 'a\0b' }, 'scope must not contain NUL bytes'],
        ];
        for (const [query, error] of cases) {
          const reply = await run.get('/v1/kv/get', query);
          assert.equal(reply.status, 400, JSON.stringify(query));
          assert.deepEqual(reply.json(), { error });
          const set = await run.post('/v1/kv/set', { ...query, value: 1 });
          assert.equal(set.status, 400);
        }
        const surrogate = await run.post('/v1/kv/set', '{"key": "\\ud800", "value": 1}');
        assert.deepEqual(surrogate.json(), { error: 'key is not well-formed Unicode' });
        assert.equal(observed.calls.length, before, 'no refused request reached the store');
        assert.equal((await run.get('/v1/kv/get', { key: 'x'.repeat(4096) })).status, 404);
        assert.equal((await run.get('/v1/kv/get', { key: '..x' })).status, 404);
      }));
  });
}
