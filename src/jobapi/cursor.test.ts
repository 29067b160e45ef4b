import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareCursor } from './cursor-order.js';
import { STORE_KINDS, withFixture } from './job-api-fixture.test.js';

void describe('compareCursor()', () => {
  void test('numbers compare numerically, strings by code point (as Python does), anything else is incomparable', () => {
    assert.equal(compareCursor('😀', '\uff5a'), 'greater', 'U+1F600 is above U+FF5A by code point');
    assert.equal(compareCursor(10, 9), 'greater');
    assert.equal(compareCursor(9, 10), 'not-greater');
    assert.equal(compareCursor(9, 9), 'not-greater');
    assert.equal(compareCursor('2026-07', '2026-06'), 'greater');
    assert.equal(compareCursor('10', '9'), 'not-greater', 'strings are not numbers');
    assert.equal(compareCursor(10, '9'), 'incomparable');
    assert.equal(compareCursor(true, false), 'incomparable');
    assert.equal(compareCursor(null, 1), 'incomparable');
    assert.equal(compareCursor({ a: 1 }, { a: 1 }), 'incomparable');
  });
});

for (const kind of STORE_KINDS) {
  void describe(`job API /v1/cursor over ${kind === 'fs' ? 'FsStateStore' : 'MemoryStateStore'}`, () => {
    void test('get of an unset cursor is 404 with an empty body', () =>
      withFixture(kind, async ({ startRun }) => {
        const reply = await startRun().get('/v1/cursor/get', { name: 'watermark' });
        assert.equal(reply.status, 404);
        assert.equal(reply.text, '');
      }));

    void test('advance sets an unset cursor, then only moves it forward (9 < 10)', () =>
      withFixture(kind, async ({ startRun, clock }) => {
        const run = startRun();
        const first = await run.post('/v1/cursor/advance', { name: 'w', value: 9 });
        assert.deepEqual(first.json(), { value: 9, advanced: true });
        assert.deepEqual((await run.post('/v1/cursor/advance', { name: 'w', value: 10 })).json(), {
          value: 10,
          advanced: true,
        });
        assert.deepEqual((await run.post('/v1/cursor/advance', { name: 'w', value: 3 })).json(), {
          value: 10,
          advanced: false,
        });
        assert.deepEqual((await run.post('/v1/cursor/advance', { name: 'w', value: 10 })).json(), {
          value: 10,
          advanced: false,
        });
        assert.deepEqual((await run.get('/v1/cursor/get', { name: 'w' })).json(), {
          value: 10,
          updatedAt: clock.now() / 1000,
        });
      }));

    void test('an ISO timestamp compares as the string it is', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        await run.post('/v1/cursor/advance', { name: 'w', value: '2026-06-30T00:00:00Z' });
        const reply = await run.post('/v1/cursor/advance', { name: 'w', value: '2026-07-01' });
        assert.deepEqual(reply.json(), { value: '2026-07-01', advanced: true });
        const back = await run.post('/v1/cursor/advance', { name: 'w', value: '2026-06-01' });
        assert.deepEqual(back.json(), { value: '2026-07-01', advanced: false });
      }));

    void test('a value not comparable with the stored one is 409 unless forced', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        await run.post('/v1/cursor/advance', { name: 'w', value: 5 });
        const mixed = await run.post('/v1/cursor/advance', { name: 'w', value: '6' });
        assert.equal(mixed.status, 409);
        assert.match(mixed.json().error, /not comparable/);
        const forced = await run.post('/v1/cursor/advance', { name: 'w', value: '6', force: true });
        assert.deepEqual(forced.json(), { value: '6', advanced: true });
      }));

    void test('force rewinds the cursor', () =>
      withFixture(kind, async ({ startRun }) => {
        const run = startRun();
        await run.post('/v1/cursor/advance', { name: 'w', value: 100 });
        const rewound = await run.post('/v1/cursor/advance', { name: 'w', value: 1, force: true });
        assert.deepEqual(rewound.json(), { value: 1, advanced: true });
        assert.equal((await run.get('/v1/cursor/get', { name: 'w' })).json().value, 1);
      }));

    void test('concurrent advances converge on the furthest value', () =>
      withFixture(kind, async ({ startRun }) => {
        const runs = [startRun(), startRun(), startRun()];
        const values = Array.from({ length: 24 }, (_, n) => (n * 7) % 24);
        const replies = await Promise.all(
          values.map((value, n) =>
            runs[n % runs.length]!.post('/v1/cursor/advance', { name: 'w', value }),
          ),
        );
        assert.ok(replies.every((reply) => reply.status === 200));
        assert.equal((await runs[0]!.get('/v1/cursor/get', { name: 'w' })).json().value, 23);
      }));

    void test('cursors are scoped, sized and validated like KV values', () =>
      withFixture(
        kind,
        async ({ startRun, inner }) => {
          const run = startRun({ name: 'etl' });
          await run.post('/v1/cursor/advance', { name: 'w', value: 1 });
          assert.equal((await inner.getDocument('cursor/etl', 'w'))?.body.value, 1);
          const other = await run.post('/v1/cursor/advance', { scope: 'x', name: 'w', value: 2 });
          assert.equal(other.status, 403);
          const big = await run.post('/v1/cursor/advance', { name: 'w', value: 'x'.repeat(20) });
          assert.equal(big.status, 413);
          assert.deepEqual((await run.post('/v1/cursor/advance', { name: 'w' })).json(), {
            error: 'value is required',
          });
          assert.deepEqual((await run.post('/v1/cursor/advance', { value: 1 })).json(), {
            error: 'name is required',
          });
          assert.equal((await run.get('/v1/cursor/get', { name: '../w' })).status, 400);
        },
        { settings: { maxValueBytes: 16 } },
      ));
  });
}
