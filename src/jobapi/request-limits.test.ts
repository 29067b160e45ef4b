// What one run, and all runs together, may hold through the job API (docs/http-api.md "Job API
// limits"): body caps per route kind, uploads streamed to a temp file, requests in flight per
// run, JSON body bytes in flight per daemon, kv/list paging and its byte cap, the rate per run.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { withFixture, type TestRun } from './job-api-fixture.test.js';

/** A POST whose body the test writes piece by piece; resolves the reply once ended. */
function openPost(
  run: TestRun,
  url: string,
  route: string,
  contentLength: number,
): { request: ClientRequest; reply: Promise<{ status: number; text: string }> } {
  const request = httpRequest(`${url}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${run.token}`, 'content-length': String(contentLength) },
    agent: false,
  });
  request.on('error', () => undefined); // a refused request may reset the socket
  const reply = (async () => {
    const [response] = (await once(request, 'response')) as [IncomingMessage];
    let text = '';
    response.setEncoding('utf8');
    for await (const chunk of response) text += chunk as string;
    return { status: response.statusCode ?? 0, text };
  })();
  return { request, reply };
}

/** Turns of the event loop until `check` holds (the server works on its own sockets). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 2000; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`gave up waiting for ${what}`);
}

void describe('job API limits', () => {
  void test('a small JSON route reads at most 64 KiB; a value route 6 x maxValueBytes + 64 KiB', () =>
    withFixture(
      'memory',
      async ({ startRun, observed }) => {
        const run = startRun();
        const calls = observed.calls.length;
        const deleteBody = JSON.stringify({ key: 'k', pad: 'x'.repeat(70_000) });
        const deleted = await run.post('/v1/kv/delete', deleteBody);
        assert.equal(deleted.status, 413);
        assert.equal(deleted.text, '413: Payload Too Large');
        // cap = 6 * 10_000 + 64 KiB = 125_536
        const set = await run.post(
          '/v1/kv/set',
          JSON.stringify({ key: 'k', value: 'x'.repeat(130_000) }),
        );
        assert.equal(set.status, 413);
        assert.equal(set.text, '413: Payload Too Large');
        assert.equal(observed.calls.length, calls, 'no store call');
        // A value written with \u escapes up to the cap is read, then judged on its compact size.
        const escaped = `{"key": "k", "value": "${'\\u0078'.repeat(9_990)}"}`;
        assert.equal((await run.post('/v1/kv/set', escaped)).status, 200);
      },
      { settings: { maxValueBytes: 10_000 } },
    ));

  void test('an artifact upload streams to a temp file, hashed on the way, removed afterwards', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'yacron2-upload-test-'));
    try {
      await withFixture(
        'memory',
        async ({ startRun, api, inner }) => {
          const run = startRun();
          const payload = Buffer.alloc(3 * 1024 * 1024, 7);
          const { request, reply } = openPost(
            run,
            api.url,
            '/v1/artifact/put?name=big',
            payload.length,
          );
          request.write(payload.subarray(0, 2 * 1024 * 1024));
          // Before the client has sent it all, the bytes so far are on disk, not in memory.
          const [dir] = await readdir(parent);
          const uploads = path.join(parent, dir ?? '');
          assert.equal((await stat(uploads)).mode & 0o777, 0o700);
          await until(async () => {
            const [file] = await readdir(uploads);
            return (
              file !== undefined && (await stat(path.join(uploads, file))).size === 2 * 1024 * 1024
            );
          }, 'the first 2 MiB on disk');
          const [file] = await readdir(uploads);
          assert.equal((await stat(path.join(uploads, file ?? ''))).mode & 0o777, 0o600);
          request.end(payload.subarray(2 * 1024 * 1024));
          const { status, text } = await reply;
          assert.equal(status, 200);
          const sha256 = createHash('sha256').update(payload).digest('hex');
          assert.deepEqual(JSON.parse(text), { sha256, size: payload.length });
          assert.deepEqual(await inner.getBlob(sha256), new Uint8Array(payload));
          assert.deepEqual(await readdir(uploads), [], 'the temp file is gone');
        },
        { tempDir: parent },
      );
      assert.deepEqual(await readdir(parent), [], 'close() removes the upload directory');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  void test('a run has at most 8 requests in flight: the 9th is a 429 with Retry-After', () =>
    withFixture('memory', async ({ startRun, api, observed }) => {
      const holder = startRun();
      const waiter = startRun();
      await holder.post('/v1/lock/acquire', { name: 'db' });
      const waiting: Promise<unknown>[] = [];
      for (let index = 0; index < 8; index++) {
        const tried = observed.settled('acquireLease');
        waiting.push(waiter.post('/v1/lock/acquire', { name: 'db', wait: true }));
        await tried;
      }
      const ninth = await waiter.get('/v1/run');
      assert.equal(ninth.status, 429);
      assert.equal(ninth.headers.get('retry-after'), '1');
      assert.deepEqual(ninth.json(), {
        error: 'too many requests of this run in flight (at most 8)',
      });
      assert.equal((await holder.get('/v1/run')).status, 200, 'other runs are not affected');
      api.runEnded(waiter.runId);
      await Promise.all(waiting);
    }));

  void test('JSON bodies being read across the daemon are bounded: past the budget a 429', () =>
    withFixture(
      'memory',
      async ({ startRun, api }) => {
        const head = '{"key": "k", "value": "';
        const slow = openPost(startRun(), api.url, '/v1/kv/set', 60_000);
        slow.request.write(head);
        // The slow body holds 60 KB of the 100 KB budget until it is complete.
        const other = startRun();
        await until(
          async () =>
            (await other.post('/v1/kv/set', { key: 'k', value: 'x'.repeat(50_000) })).status ===
            429,
          'the budget to be taken',
        );
        assert.equal((await other.post('/v1/kv/set', { key: 'k', value: 'small' })).status, 200);
        slow.request.end(`${'y'.repeat(60_000 - head.length - 2)}"}`);
        assert.equal((await slow.reply).status, 200);
        assert.equal(
          (await other.post('/v1/kv/set', { key: 'k', value: 'x'.repeat(50_000) })).status,
          200,
        );
      },
      { limits: { jsonBodyBytesInFlight: 100_000, requestsPerSecondPerRun: 1_000_000 } },
    ));

  void test('kv/list pages with limit and after, lists keys only with values=0, and refuses an unpaged listing over its byte cap', () =>
    withFixture(
      'memory',
      async ({ startRun }) => {
        const run = startRun();
        for (const key of ['a', 'b', 'c', 'd', 'e']) {
          await run.post('/v1/kv/set', { key, value: 'v'.repeat(400) });
        }
        const unpaged = await run.get('/v1/kv/list');
        assert.equal(unpaged.status, 413);
        assert.deepEqual(unpaged.json(), {
          error:
            "the keys of scope 'etl' are over 1000 bytes; list them in pages with limit and after",
        });
        const first = (await run.get('/v1/kv/list', { limit: '2' })).json();
        assert.deepEqual(
          first.keys.map((entry: { key: string }) => entry.key),
          ['a', 'b'],
        );
        assert.equal(first.next, 'b');
        // The byte cap ends a page early too: two 402-byte entries fit in 1000, not three.
        const second = (await run.get('/v1/kv/list', { limit: '5', after: 'b' })).json();
        assert.deepEqual(
          second.keys.map((entry: { key: string }) => entry.key),
          ['c', 'd'],
        );
        assert.equal(second.next, 'd');
        const last = (await run.get('/v1/kv/list', { limit: '5', after: 'd' })).json();
        assert.deepEqual(
          last.keys.map((entry: { key: string }) => entry.key),
          ['e'],
        );
        assert.equal('next' in last, false);
        const keysOnly = (await run.get('/v1/kv/list', { values: '0' })).json();
        assert.deepEqual(keysOnly, {
          scope: 'etl',
          keys: ['a', 'b', 'c', 'd', 'e'].map((key) => ({ key })),
        });
        assert.equal((await run.get('/v1/kv/list', { limit: '0' })).status, 400);
        assert.equal((await run.get('/v1/kv/list', { limit: '1001' })).status, 400);
      },
      { limits: { kvListMaxBytes: 1000 } },
    ));

  void test('a run past its request rate waits for its turn instead of being served at once', () =>
    withFixture(
      'memory',
      async ({ startRun, clock }) => {
        const run = startRun();
        for (let index = 0; index < 5; index++)
          assert.equal((await run.get('/v1/run')).status, 200);
        const paced = clock.nextTimer();
        let answered = false;
        const sixth = run.get('/v1/run').then((reply) => {
          answered = true;
          return reply;
        });
        assert.equal(await paced, 200, 'a token comes back after 1/5 s');
        assert.equal(answered, false);
        await clock.advance(200);
        assert.equal((await sixth).status, 200);
      },
      { limits: { requestsPerSecondPerRun: 5 } },
    ));
});
