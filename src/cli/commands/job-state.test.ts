// `yacron2 state get|set|delete|keys` against the in-test endpoint: values round-trip as strings
// or JSON, a missing key exits 4, scopes reach the request, keys print one per line.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeStateEndpoint, runJob } from '../job-client/endpoint-fixture.test.js';

void describe('yacron2 state get|set|delete|keys', () => {
  let endpoint: FakeStateEndpoint;
  const run = (...argv: string[]) => runJob(argv, { env: endpoint.env });
  before(async () => {
    endpoint = await FakeStateEndpoint.start({ allowedScopes: ['team'] });
  });
  after(() => endpoint.close());

  void it('set stores VALUE as a string and prints nothing; get prints it raw', async () => {
    assert.deepEqual(await run('state', 'set', 'last-cursor', '12345'), {
      code: 0,
      stdout: '',
      stderr: '',
      stdoutBytes: Buffer.alloc(0),
    });
    assert.deepEqual(endpoint.requestsTo('/v1/kv/set').at(-1)?.body, {
      key: 'last-cursor',
      value: '12345',
    });
    const got = await run('state', 'get', 'last-cursor');
    assert.deepEqual([got.code, got.stdout], [0, '12345\n']);
  });

  void it('set --json stores parsed JSON, which get prints the way Python does', async () => {
    assert.equal((await run('state', 'set', 'config', '{"n":3,"on":true}', '--json')).code, 0);
    assert.deepEqual(endpoint.requestsTo('/v1/kv/set').at(-1)?.body, {
      key: 'config',
      value: { n: 3, on: true },
    });
    assert.equal((await run('state', 'get', 'config')).stdout, '{"n": 3, "on": true}\n');
    await run('state', 'set', 'nothing', 'null', '--json');
    assert.deepEqual(
      [(await run('state', 'get', 'nothing')).code, (await run('state', 'get', 'nothing')).stdout],
      [0, 'null\n'],
    );
  });

  void it('set --json with invalid JSON exits 1 without a request', async () => {
    const before = endpoint.requestsTo('/v1/kv/set').length;
    const result = await run('state', 'set', 'k', '{oops', '--json');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^yacron2 state: VALUE is not valid JSON: /);
    assert.equal(endpoint.requestsTo('/v1/kv/set').length, before);
  });

  void it('get of a missing key: `key not found: KEY`, exit 4', async () => {
    assert.deepEqual(await run('state', 'get', 'absent'), {
      code: 4,
      stdout: '',
      stderr: 'yacron2 state: key not found: absent\n',
      stdoutBytes: Buffer.alloc(0),
    });
  });

  void it('delete exits 0 when the key existed and 4 when it did not', async () => {
    await run('state', 'set', 'gone', 'x');
    assert.equal((await run('state', 'delete', 'gone')).code, 0);
    const again = await run('state', 'delete', 'gone');
    assert.deepEqual([again.code, again.stderr], [4, 'yacron2 state: key not found: gone\n']);
  });

  void it('--global and --scope NAME pick the scope; without them the scope is left to the run', async () => {
    await run('state', 'set', 'shared', 'g', '--global');
    await run('state', 'set', 'shared', 't', '--scope', 'team');
    assert.deepEqual(
      endpoint
        .requestsTo('/v1/kv/set')
        .slice(-2)
        .map((request) => request.body),
      [
        { scope: 'global', key: 'shared', value: 'g' },
        { scope: 'team', key: 'shared', value: 't' },
      ],
    );
    assert.equal((await run('state', 'get', 'shared', '--global')).stdout, 'g\n');
    assert.deepEqual(endpoint.requestsTo('/v1/kv/get').at(-1)?.query, {
      key: 'shared',
      scope: 'global',
    });
    assert.equal((await run('state', 'get', 'shared')).code, 4);
    assert.deepEqual(endpoint.requestsTo('/v1/kv/get').at(-1)?.query, { key: 'shared' });
  });

  void it('keys prints one key per line, sorted; nothing for an empty scope', async () => {
    await run('state', 'set', 'b', '1', '--scope', 'team');
    await run('state', 'set', 'a', '2', '--scope', 'team');
    assert.equal((await run('state', 'keys', '--scope', 'team')).stdout, 'a\nb\nshared\n');
    const empty = await FakeStateEndpoint.start();
    try {
      assert.deepEqual(await runJob(['state', 'keys'], { env: empty.env }), {
        code: 0,
        stdout: '',
        stderr: '',
        stdoutBytes: Buffer.alloc(0),
      });
    } finally {
      await empty.close();
    }
  });

  void it('keys pages through a scope bigger than a page, asking for keys only', async () => {
    const big = await FakeStateEndpoint.start();
    try {
      const keys = Array.from({ length: 2500 }, (_, index) => `k${String(index).padStart(4, '0')}`);
      big.seedKeys(keys);
      const result = await runJob(['state', 'keys'], { env: big.env });
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `${keys.join('\n')}\n`);
      assert.deepEqual(
        big.requestsTo('/v1/kv/list').map((request) => request.query),
        [
          { limit: '1000', values: '0' },
          { limit: '1000', values: '0', after: 'k0999' },
          { limit: '1000', values: '0', after: 'k1999' },
        ],
      );
    } finally {
      await big.close();
    }
  });
});
