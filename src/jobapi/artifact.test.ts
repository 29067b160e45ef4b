import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { STORE_KINDS, withFixture, type TestRun } from './job-api-fixture.test.js';

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function put(run: TestRun, name: string, body: Uint8Array | string, scope?: string) {
  const query = new URLSearchParams({ name, ...(scope === undefined ? {} : { scope }) });
  return run.request(`/v1/artifact/put?${query.toString()}`, { method: 'POST', body });
}

for (const kind of STORE_KINDS) {
  void describe(`job API /v1/artifact over ${kind === 'fs' ? 'FsStateStore' : 'MemoryStateStore'}`, () => {
    void test('put stores raw bytes; get returns them with their digest and size headers', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        const payload = new Uint8Array([0, 1, 2, 255, 10, 13]);
        const reply = await put(run, 'report.bin', payload);
        assert.equal(reply.status, 200);
        assert.deepEqual(reply.json(), { sha256: sha256(payload), size: 6 });
        const got = await run.get('/v1/artifact/get', { name: 'report.bin' });
        assert.equal(got.status, 200);
        assert.deepEqual(got.bytes, payload);
        assert.equal(got.headers.get('content-type'), 'application/octet-stream');
        assert.equal(got.headers.get('x-yacron2-sha256'), sha256(payload));
        assert.equal(got.headers.get('x-yacron2-size'), '6');
      }));

    void test('versions accumulate and reads are newest-wins; list shows the newest per name', () =>
      withFixture(kind, async ({ startRun, clock }) => {
        const run = startRun();
        await put(run, 'b', 'first b');
        await clock.advance(1000);
        await put(run, 'a', 'only a');
        await clock.advance(1000);
        await put(run, 'b', 'second b');
        assert.equal((await run.get('/v1/artifact/get', { name: 'b' })).text, 'second b');
        const list = await run.get('/v1/artifact/list');
        assert.deepEqual(list.json(), {
          scope: 'etl',
          artifacts: [
            { name: 'a', sha256: sha256('only a'), size: 6, at: (clock.now() - 1000) / 1000 },
            { name: 'b', sha256: sha256('second b'), size: 8, at: clock.now() / 1000 },
          ],
        });
      }));

    void test('records land in artifacts/<scope> with the blob reference GC reads', () =>
      withFixture(kind, async ({ startRun, inner, clock }) => {
        await put(startRun({ name: 'builder' }), 'out', 'payload');
        const records = await inner.list('artifacts/builder');
        assert.deepEqual(
          records.map((record) => record.data),
          [{ name: 'out', sha256: sha256('payload'), size: 7, at: clock.now() / 1000 }],
        );
        assert.equal(await inner.hasBlob(sha256('payload')), true);
      }));

    void test('a name never published is 404; a record whose blob was collected is 410', () =>
      withFixture(kind, async ({ startRun, inner }) => {
        const run = startRun();
        const missing = await run.get('/v1/artifact/get', { name: 'nope' });
        assert.equal(missing.status, 404);
        assert.equal(missing.text, '');
        await put(run, 'gone', 'bytes');
        await inner.deleteBlob(sha256('bytes'));
        const gone = await run.get('/v1/artifact/get', { name: 'gone' });
        assert.equal(gone.status, 410);
        assert.match(gone.json().error, /garbage-collected/);
      }));

    void test('an empty payload is an artifact of size 0', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        assert.deepEqual((await put(run, 'empty', '')).json(), { sha256: sha256(''), size: 0 });
        const got = await run.get('/v1/artifact/get', { name: 'empty' });
        assert.equal(got.status, 200);
        assert.equal(got.bytes.length, 0);
      }));

    void test('a payload over maxArtifactBytes is 413 with a JSON reason and stores nothing', () =>
      withFixture(
        kind,
        async ({ startRun, inner }) => {
          const run = startRun();
          assert.equal((await put(run, 'ok', 'x'.repeat(1000))).status, 200);
          const over = await put(run, 'big', 'x'.repeat(1001));
          assert.equal(over.status, 413);
          assert.deepEqual(over.json(), {
            error: 'artifact is 1001 bytes, over the maxArtifactBytes limit of 1000',
          });
          assert.equal((await inner.list('artifacts/etl')).length, 1);
        },
        { settings: { maxArtifactBytes: 1000, maxValueBytes: 10 } },
      ));

    void test('a body over the transport cap is a plain 413 before it is read', () =>
      withFixture(
        kind,
        async ({ startRun, observed }) => {
          const run = startRun();
          // cap = max(1000, 6 * 10) + 64 KiB
          const tooBig = new Uint8Array(1000 + 64 * 1024 + 1);
          const calls = observed.calls.length;
          const reply = await put(run, 'big', tooBig);
          assert.equal(reply.status, 413);
          assert.equal(reply.text, '413: Payload Too Large');
          assert.equal(observed.calls.length, calls);
          const kvReply = await run.post('/v1/kv/set', { key: 'k', value: 'x'.repeat(70_000) });
          assert.equal(kvReply.status, 413);
          assert.equal((await run.get('/v1/run')).status, 200, 'the server is still serving');
        },
        { settings: { maxArtifactBytes: 1000, maxValueBytes: 10 } },
      ));

    void test('names and scopes are validated and authorised', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        assert.deepEqual((await put(run, '', 'x')).json(), { error: 'name is required' });
        assert.deepEqual((await put(run, '../../x', 'x')).json(), {
          error: "name must not contain a '..' path segment",
        });
        assert.equal((await put(run, 'x', 'x', 'someone-else')).status, 403);
        assert.equal((await run.get('/v1/artifact/list', { scope: 'someone-else' })).status, 403);
        assert.equal((await put(run, 'x', 'x', 'global')).status, 200);
        assert.equal((await run.get('/v1/artifact/get', { name: 'x', scope: 'global' })).text, 'x');
      }));
  });
}
