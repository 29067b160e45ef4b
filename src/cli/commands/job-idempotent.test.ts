// `yacron2 idempotent KEY`: exit 0 for the fresh claim, 5 for every later one, --ttl bounds the
// claim, --release frees it (exit 0 either way), an outage exits 1.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeStateEndpoint, runJob } from '../job-client/endpoint-fixture.test.js';

void describe('yacron2 idempotent', () => {
  let endpoint: FakeStateEndpoint;
  const run = (...argv: string[]) => runJob(argv, { env: endpoint.env });
  before(async () => {
    endpoint = await FakeStateEndpoint.start();
  });
  after(() => endpoint.close());

  void it('the first claim exits 0, every later one 5, silently', async () => {
    assert.deepEqual(await run('idempotent', 'charge-2026-06-01'), {
      code: 0,
      stdout: '',
      stderr: '',
      stdoutBytes: Buffer.alloc(0),
    });
    assert.deepEqual(endpoint.requestsTo('/v1/idempotency/claim').at(-1)?.body, {
      key: 'charge-2026-06-01',
      ttl: 0,
    });
    assert.equal((await run('idempotent', 'charge-2026-06-01')).code, 5);
    assert.equal((await run('idempotent', 'charge-2026-06-01', '--global')).code, 0);
  });

  void it('--ttl S makes the claim expire', async () => {
    assert.equal((await run('idempotent', 'window', '--ttl', '60')).code, 0);
    assert.deepEqual(endpoint.requestsTo('/v1/idempotency/claim').at(-1)?.body, {
      key: 'window',
      ttl: 60,
    });
    assert.equal((await run('idempotent', 'window', '--ttl', '60')).code, 5);
    endpoint.advance(60_001);
    assert.equal((await run('idempotent', 'window', '--ttl', '60')).code, 0);
  });

  void it('--release drops the claim and exits 0 whether or not there was one', async () => {
    await run('idempotent', 'once');
    assert.equal((await run('idempotent', 'once', '--release')).code, 0);
    assert.equal((await run('idempotent', 'once', '--release')).code, 0);
    assert.equal((await run('idempotent', 'once')).code, 0);
  });

  void it('an outage exits 1, never 5', async () => {
    endpoint.override('/v1/idempotency/claim', {
      status: 503,
      body: { error: 'state backend unavailable: timeout' },
    });
    const result = await run('idempotent', 'anything');
    assert.deepEqual(
      [result.code, result.stderr],
      [1, 'yacron2 idempotent: state backend unavailable: timeout\n'],
    );
  });
});
