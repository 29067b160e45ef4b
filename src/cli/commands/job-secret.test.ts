// `yacron2 secret get|list`: the staged value raw, exit 4 for one not staged, names only.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeStateEndpoint, runJob } from '../job-client/endpoint-fixture.test.js';

void describe('yacron2 secret get|list', () => {
  let endpoint: FakeStateEndpoint;
  const run = (...argv: string[]) => runJob(argv, { env: endpoint.env });
  before(async () => {
    endpoint = await FakeStateEndpoint.start({
      secrets: { API_TOKEN: 's3cr3t', DB_PASSWORD: 'pw' },
    });
  });
  after(() => endpoint.close());

  void it('get prints the value raw', async () => {
    assert.deepEqual([(await run('secret', 'get', 'API_TOKEN')).stdout], ['s3cr3t\n']);
  });

  void it('get of a secret not staged: `secret not staged: NAME`, exit 4', async () => {
    const result = await run('secret', 'get', 'NOPE');
    assert.deepEqual(
      [result.code, result.stderr],
      [4, 'yacron2 secret: secret not staged: NOPE\n'],
    );
  });

  void it('list prints the names, not the values', async () => {
    assert.equal((await run('secret', 'list')).stdout, 'API_TOKEN\nDB_PASSWORD\n');
  });

  void it('takes no scope flags', async () => {
    assert.equal((await run('secret', 'get', 'API_TOKEN', '--global')).code, 2);
  });
});
