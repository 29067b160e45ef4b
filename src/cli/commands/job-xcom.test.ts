// `yacron2 xcom push|pull|list`: artifacts in the run's XCom scope named `<taskkey>/<key>`, the
// required flags, exit 4 for a value never pushed, and the refusal outside a DAG task.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeStateEndpoint, runJob } from '../job-client/endpoint-fixture.test.js';

const SCOPE = 'dagxcom/etl/0123456789abcdef0123456789abcdef';

void describe('yacron2 xcom push|pull|list', () => {
  let endpoint: FakeStateEndpoint;
  const dagEnv = (): Record<string, string> => ({
    ...endpoint.env,
    YACRON2_DAG_XCOM_SCOPE: SCOPE,
    YACRON2_DAG_TASKKEY: 'each#2',
  });
  before(async () => {
    endpoint = await FakeStateEndpoint.start({ allowedScopes: [SCOPE] });
  });
  after(async () => {
    await endpoint.close();
  });

  void it('push publishes stdin as <taskkey>/<key> in the XCom scope and prints nothing', async () => {
    const result = await runJob(['xcom', 'push', '--key', 'rows'], {
      env: dagEnv(),
      stdin: Buffer.from('[1, 2]'),
    });
    assert.deepEqual([result.code, result.stdout, result.stderr], [0, '', '']);
    const request = endpoint.requestsTo('/v1/artifact/put').at(-1);
    assert.deepEqual(request?.query, { name: 'each#2/rows', scope: SCOPE });
    assert.deepEqual(request?.body, Buffer.from('[1, 2]'));
  });

  void it('pull reads TASK[#I]/KEY back; a value never pushed exits 4', async () => {
    const pulled = await runJob(
      ['xcom', 'pull', '--task', 'each', '--map-index', '2', '--key', 'rows'],
      {
        env: dagEnv(),
      },
    );
    assert.deepEqual([pulled.code, pulled.stdoutBytes.toString()], [0, '[1, 2]']);
    assert.deepEqual(endpoint.requestsTo('/v1/artifact/get').at(-1)?.query, {
      name: 'each#2/rows',
      scope: SCOPE,
    });
    const missing = await runJob(['xcom', 'pull', '--task', 'extract', '--key', 'nope'], {
      env: dagEnv(),
    });
    assert.deepEqual(
      [missing.code, missing.stderr],
      [4, "yacron2 xcom: no xcom 'nope' from task 'extract'\n"],
    );
  });

  void it('list prints the names of the run scope', async () => {
    const listed = await runJob(['xcom', 'list'], { env: dagEnv() });
    assert.deepEqual([listed.code, listed.stdout], [0, 'each#2/rows\n']);
    assert.deepEqual(endpoint.requestsTo('/v1/artifact/list').at(-1)?.query, { scope: SCOPE });
  });

  void it('refuses to run outside a DAG task, and without its required flags', async () => {
    const outside = await runJob(['xcom', 'list'], { env: endpoint.env });
    assert.equal(outside.code, 1);
    assert.match(
      outside.stderr,
      /^yacron2 xcom: not running inside a yacron2 DAG task: YACRON2_DAG_XCOM_SCOPE is not set/,
    );
    const noKey = await runJob(['xcom', 'push'], { env: dagEnv(), stdin: Buffer.from('') });
    assert.deepEqual(
      [noKey.code, noKey.stderr],
      [2, 'yacron2 xcom: the following arguments are required: --key\n'],
    );
    const noTask = await runJob(['xcom', 'pull', '--key', 'k'], { env: dagEnv() });
    assert.equal(noTask.code, 2);
    const noTaskKey = await runJob(['xcom', 'push', '--key', 'k'], {
      env: { ...endpoint.env, YACRON2_DAG_XCOM_SCOPE: SCOPE },
      stdin: Buffer.from('x'),
    });
    assert.equal(noTaskKey.code, 1);
    assert.match(noTaskKey.stderr, /YACRON2_DAG_TASKKEY is not set/);
  });
});
