// E2E: artifacts and run-scoped secrets from real jobs of a real daemon (docs/job-state.md): bytes
// put by one run come back byte for byte in a later run; a secret reaches its own run only, never
// the environment, and a run's token is refused (401) once the run has ended.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { once } from 'node:events';
import { readLines, runCli, startDaemon, waitForFile, waitForLines } from './harness.js';
import { SKIP_WITHOUT_JOB_API, useJobState } from './job-fixture.test.js';

test(
  'an artifact put by one run is read back byte for byte by a later run',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const payload = Buffer.concat([
      Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)),
      randomBytes(70_000),
    ]);
    await writeFile(join(setup.dir, 'payload.bin'), payload);
    // First run publishes (from a file and from stdin); the second reads both back, to a file and
    // to stdout.
    const config = await setup.writeJobs(`jobs:
  - name: reporter
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
    command: |
      ${SKIP_WITHOUT_JOB_API}
      if [ ! -e ${setup.file('published')} ]; then
        yacron2 artifact put report ${setup.file('payload.bin')} > ${setup.file('put-sha')}
        yacron2 artifact put piped < ${setup.file('payload.bin')} >> ${setup.file('put-sha')}
        echo "$YACRON2_RUN_ID" > ${setup.file('published')}
      elif [ ! -e ${setup.file('fetched')} ]; then
        yacron2 artifact get report -o ${setup.file('copy.bin')}
        yacron2 artifact get piped > ${setup.file('piped.bin')}
        yacron2 artifact list > ${setup.file('list')}
        yacron2 artifact get never; echo "rc=$?" >> ${setup.file('list')}
        echo "$YACRON2_RUN_ID" > ${setup.file('fetched')}
      fi
`);
    const daemon = startDaemon(t, ['-c', config], { env: setup.env });
    const fetchedBy = await waitForFile(
      join(setup.dir, 'fetched'),
      (text) => text.endsWith('\n'),
      30_000,
    );
    assert.notEqual(
      fetchedBy,
      readFileSync(join(setup.dir, 'published'), 'utf8'),
      'two different runs',
    );
    const sha = createHash('sha256').update(payload).digest('hex');
    assert.deepEqual(readLines(join(setup.dir, 'put-sha')), [sha, sha]);
    assert.ok(readFileSync(join(setup.dir, 'copy.bin')).equals(payload), 'get -o FILE');
    assert.ok(readFileSync(join(setup.dir, 'piped.bin')).equals(payload), 'get to stdout');
    assert.deepEqual(readLines(join(setup.dir, 'list')), ['piped', 'report', 'rc=4']);
    assert.equal(await daemon.stop(), 0);
  },
);

/** GET `path` of the endpoint with `token`; the status. */
async function statusOf(url: string, path: string, token: string): Promise<number> {
  const outgoing = request(`${url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    agent: false,
  });
  outgoing.end();
  const [incoming] = (await once(outgoing, 'response')) as [IncomingMessage];
  incoming.resume();
  return incoming.statusCode ?? 0;
}

test(
  "a secret reaches its own run only, and a run's token is refused once the run ended",
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const config = await setup.writeJobs(`jobs:
  - name: with-secret
    schedule: "* * * * * * *"
    command: |
      ${SKIP_WITHOUT_JOB_API}
      [ -e ${setup.file('.ran')} ] && exit 0
      touch ${setup.file('.ran')}
      {
        yacron2 secret get API_TOKEN
        yacron2 secret list
        env | grep -c s3cr3t-value
      } > ${setup.file('secret.txt')} 2>&1
      echo "$YACRON2_STATE_URL" > ${setup.file('url')}
      echo "$YACRON2_STATE_TOKEN" > ${setup.file('token')}
      # Stay alive until the test has used the token of this live run.
      while [ ! -e ${setup.file('go')} ]; do sleep 0.05; done
    concurrencyPolicy: Forbid
    secrets:
      - name: API_TOKEN
        value: s3cr3t-value
      - name: FROM_ENV
        fromEnvVar: E2E_JOB_SECRET
  - name: without-secret
    schedule: "* * * * * * *"
    command: |
      ${SKIP_WITHOUT_JOB_API}
      [ -e ${setup.file('.ran-without')} ] && exit 0
      touch ${setup.file('.ran-without')}
      { yacron2 secret get API_TOKEN; echo "rc=$?"; yacron2 secret list; echo "list rc=$?"; } > ${setup.file('without.tmp')} 2>&1
      mv ${setup.file('without.tmp')} ${setup.file('without.txt')}
`);
    const daemon = startDaemon(t, ['-c', config], {
      env: { ...setup.env, E2E_JOB_SECRET: 'from-daemon-env' },
    });
    const token = (
      await waitForFile(join(setup.dir, 'token'), (text) => text.endsWith('\n'))
    ).trim();
    const url = readFileSync(join(setup.dir, 'url'), 'utf8').trim();
    assert.deepEqual(readLines(join(setup.dir, 'secret.txt')), [
      's3cr3t-value',
      'API_TOKEN',
      'FROM_ENV',
      '0',
    ]);
    await waitForLines(join(setup.dir, 'without.txt'), 3, 30_000);
    assert.deepEqual(readLines(join(setup.dir, 'without.txt')), [
      'yacron2 secret: secret not staged: API_TOKEN',
      'rc=4',
      'list rc=0',
    ]);

    // While the run lives its token works; once it ended (Forbid: no other instance can end
    // first), the same token is refused.
    assert.equal(await statusOf(url, '/v1/secret/get?name=API_TOKEN', token), 200);
    const ended = daemon.waitForNewLog(/^Job with-secret exit code 0/, 30_000);
    await writeFile(join(setup.dir, 'go'), '');
    await ended;
    assert.equal(await statusOf(url, '/v1/secret/get?name=API_TOKEN', token), 401);
    assert.equal(await statusOf(url, '/v1/run', token), 401);
    const late = await runCli(['secret', 'get', 'API_TOKEN'], {
      env: { ...process.env, YACRON2_STATE_URL: url, YACRON2_STATE_TOKEN: token },
    });
    assert.deepEqual([late.code, late.stdout], [1, '']);
    assert.match(late.stderr, /^yacron2 secret: .*401/);
    assert.equal(await daemon.stop(), 0);
  },
);

test('the endpoint listens on loopback only by default', { timeout: 60_000 }, async (t) => {
  const setup = await useJobState(t);
  const config = await setup.writeJobs(`jobs:
  - name: where
    schedule: "* * * * * * *"
    command: |
      ${SKIP_WITHOUT_JOB_API}
      echo "$YACRON2_STATE_URL" > ${setup.file('url')}
`);
  const daemon = startDaemon(t, ['-c', config], { env: setup.env });
  const url = new URL(
    (await waitForFile(join(setup.dir, 'url'), (text) => text.endsWith('\n'))).trim(),
  );
  assert.equal(url.hostname, '127.0.0.1');
  const { networkInterfaces } = await import('node:os');
  const external = Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && !address.internal && address.family === 'IPv4');
  if (external === undefined) {
    t.skip('this host has no non-loopback IPv4 address to try');
  } else {
    const { connect } = await import('node:net');
    const socket = connect({ host: external.address, port: Number(url.port) });
    const outcome = await new Promise<string>((resolve) => {
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    socket.destroy();
    assert.equal(outcome, 'ECONNREFUSED', `${external.address}:${url.port}`);
  }
  assert.equal(await daemon.stop(), 0);

  // Binding a non-loopback address needs allowNonLoopbackBind.
  const exposed = await setup.writeJobs(
    'jobs:\n  - name: nightly\n    command: "true"\n    schedule: "0 3 * * *"',
    'listen: http://0.0.0.0:0',
  );
  const refused = await runCli(['-c', exposed, '-v']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /allowNonLoopbackBind/);
});
