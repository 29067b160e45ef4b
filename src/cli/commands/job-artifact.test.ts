// `yacron2 artifact put|get|list`: bytes from a file or stdin, back to stdout or -o FILE
// untouched, the sha256 printed and checked, exit 4 for a name never published.
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeStateEndpoint, runJob } from '../job-client/endpoint-fixture.test.js';

const ALL_BYTES = Buffer.from(Array.from({ length: 512 }, (_, index) => index % 256));
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

void describe('yacron2 artifact put|get|list', () => {
  let endpoint: FakeStateEndpoint;
  let dir: string;
  const run = (...argv: string[]) => runJob(argv, { env: endpoint.env });
  before(async () => {
    endpoint = await FakeStateEndpoint.start();
    dir = await mkdtemp(join(tmpdir(), 'yacron2-artifact-'));
  });
  after(async () => {
    await endpoint.close();
    await rm(dir, { recursive: true, force: true });
  });

  void it('put FILE sends the raw bytes and prints their sha256; get writes them back byte for byte', async () => {
    const file = join(dir, 'report.bin');
    await writeFile(file, ALL_BYTES);
    const put = await run('artifact', 'put', 'report', file);
    assert.deepEqual([put.code, put.stdout, put.stderr], [0, `${sha256(ALL_BYTES)}\n`, '']);
    const request = endpoint.requestsTo('/v1/artifact/put').at(-1);
    assert.deepEqual(request?.query, { name: 'report' });
    assert.equal(request?.headers['content-type'], 'application/octet-stream');
    assert.deepEqual(request?.body, ALL_BYTES);

    const toStdout = await run('artifact', 'get', 'report');
    assert.equal(toStdout.code, 0);
    assert.deepEqual(toStdout.stdoutBytes, ALL_BYTES);
    const out = join(dir, 'copy.bin');
    const toFile = await run('artifact', 'get', 'report', '-o', out);
    assert.deepEqual([toFile.code, toFile.stdoutBytes.length], [0, 0]);
    assert.deepEqual(await readFile(out), ALL_BYTES);
  });

  void it('put without FILE, or with -, reads stdin', async () => {
    for (const argv of [
      ['artifact', 'put', 'piped'],
      ['artifact', 'put', 'piped', '-', '--global'],
    ]) {
      const result = await runJob(argv, { env: endpoint.env, stdin: Buffer.from('from stdin') });
      assert.equal(result.stdout, `${sha256(Buffer.from('from stdin'))}\n`);
    }
    assert.deepEqual(endpoint.requestsTo('/v1/artifact/put').at(-1)?.query, {
      name: 'piped',
      scope: 'global',
    });
  });

  void it('put of an unreadable FILE exits 1 without a request', async () => {
    const before = endpoint.requestsTo('/v1/artifact/put').length;
    const result = await run('artifact', 'put', 'x', join(dir, 'missing'));
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^yacron2 artifact: cannot read .*missing: ENOENT/);
    assert.equal(endpoint.requestsTo('/v1/artifact/put').length, before);
  });

  void it('get of a name never published: `artifact not found: NAME`, exit 4; a collected blob (410) exits 1', async () => {
    const missing = await run('artifact', 'get', 'never');
    assert.deepEqual(
      [missing.code, missing.stderr],
      [4, 'yacron2 artifact: artifact not found: never\n'],
    );
    endpoint.override('/v1/artifact/get', {
      status: 410,
      body: { error: "artifact 'old' blob was garbage-collected" },
    });
    try {
      const gone = await run('artifact', 'get', 'old');
      assert.deepEqual(
        [gone.code, gone.stderr],
        [1, "yacron2 artifact: artifact 'old' blob was garbage-collected\n"],
      );
    } finally {
      endpoint.restore('/v1/artifact/get');
    }
  });

  void it('refuses bytes whose sha256 differs from the announced one, and writes nothing', async () => {
    endpoint.override('/v1/artifact/get', {
      status: 200,
      body: Buffer.from('tampered'),
      headers: {
        'content-type': 'application/octet-stream',
        'x-yacron2-sha256': sha256(Buffer.from('original')),
      },
    });
    try {
      const out = join(dir, 'never-written');
      const result = await run('artifact', 'get', 'report', '-o', out);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^yacron2 artifact: artifact report arrived damaged/);
      await assert.rejects(readFile(out), { code: 'ENOENT' });
    } finally {
      endpoint.restore('/v1/artifact/get');
    }
  });

  void it('list prints one name per line', async () => {
    assert.equal((await run('artifact', 'list')).stdout, 'piped\nreport\n');
    assert.equal((await run('artifact', 'list', '--global')).stdout, 'piped\n');
  });
});
