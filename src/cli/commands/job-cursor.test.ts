// `yacron2 cursor get|advance`: VALUE typed int → float → string, the resulting value printed
// whether or not it moved, --force rewinds, an unset cursor exits 4.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeStateEndpoint, runJob } from '../job-client/endpoint-fixture.test.js';
import { typeCursorValue } from './job-cursor.js';

void describe('typeCursorValue()', () => {
  void it('reads an int, else a float, else keeps the text', () => {
    assert.equal(typeCursorValue('10'), 10);
    assert.equal(typeCursorValue(' 1_000 '), 1000);
    assert.equal(typeCursorValue('2.5'), 2.5);
    assert.equal(typeCursorValue('1e3'), 1000);
    assert.equal(typeCursorValue('2026-06-01T00:00:00Z'), '2026-06-01T00:00:00Z');
    assert.equal(typeCursorValue('abc'), 'abc');
    assert.equal(typeCursorValue('-Infinity'), null);
    assert.equal(typeCursorValue('nan'), null);
  });
});

void describe('yacron2 cursor get|advance', () => {
  let endpoint: FakeStateEndpoint;
  const run = (...argv: string[]) => runJob(argv, { env: endpoint.env });
  before(async () => {
    endpoint = await FakeStateEndpoint.start();
  });
  after(() => endpoint.close());

  void it('get of a cursor never set: `cursor not set: NAME`, exit 4', async () => {
    const result = await run('cursor', 'get', 'watermark');
    assert.deepEqual(
      [result.code, result.stderr],
      [4, 'yacron2 cursor: cursor not set: watermark\n'],
    );
  });

  void it('advance sends numbers as numbers and prints where the cursor is, moved or not', async () => {
    assert.deepEqual([(await run('cursor', 'advance', 'watermark', '9')).stdout], ['9\n']);
    assert.deepEqual(endpoint.requestsTo('/v1/cursor/advance').at(-1)?.body, {
      name: 'watermark',
      value: 9,
    });
    // 10 > 9 numerically (as strings "10" < "9").
    assert.equal((await run('cursor', 'advance', 'watermark', '10')).stdout, '10\n');
    const behind = await run('cursor', 'advance', 'watermark', '7');
    assert.deepEqual([behind.code, behind.stdout], [0, '10\n']);
    assert.equal((await run('cursor', 'get', 'watermark')).stdout, '10\n');
  });

  void it('--force rewinds', async () => {
    assert.equal((await run('cursor', 'advance', 'watermark', '3', '--force')).stdout, '3\n');
    assert.deepEqual(endpoint.requestsTo('/v1/cursor/advance').at(-1)?.body, {
      name: 'watermark',
      value: 3,
      force: true,
    });
  });

  void it("ISO timestamps compare as strings; a number against a string is the endpoint's 409, exit 1", async () => {
    await run('cursor', 'advance', 'since', '2026-06-01T00:00:00Z');
    assert.equal(
      (await run('cursor', 'advance', 'since', '2026-05-01T00:00:00Z')).stdout,
      '2026-06-01T00:00:00Z\n',
    );
    const mixed = await run('cursor', 'advance', 'since', '5');
    assert.equal(mixed.code, 1);
    assert.match(mixed.stderr, /^yacron2 cursor: cursor value is not comparable/);
  });

  void it('a value JSON cannot carry is refused without a request, exit 1', async () => {
    const before = endpoint.requestsTo('/v1/cursor/advance').length;
    const result = await run('cursor', 'advance', 'w', 'inf');
    assert.deepEqual(
      [result.code, result.stderr],
      [1, 'yacron2 cursor: VALUE cannot be stored as JSON: inf\n'],
    );
    assert.equal(endpoint.requestsTo('/v1/cursor/advance').length, before);
  });
});
