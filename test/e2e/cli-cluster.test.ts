// E2E: the built CLI with a `cluster` section. `-v` reports the section's errors with file and
// line, logs its advisories, dry-runs the certificate files that exist (warning about absent
// ones); `--job-set-id` ignores the section.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeTestCa } from '../../src/cluster/testing.js';
import { runCli, useTempDir, writeConfig } from './harness.js';

const JOBS = 'jobs:\n  - name: a\n    command: echo a\n    schedule: "*/5 * * * *"\n';

function clusterSection(tls: { ca: string; cert: string; key: string }, extra = ''): string {
  return (
    `${JOBS}cluster:\n  listen: "127.0.0.1:18443"\n  tls:\n    ca: ${tls.ca}\n    cert: ${tls.cert}\n    key: ${tls.key}\n` +
    `  peers:\n    - host: b.internal:8443\n    - host: c.internal:8443\n  nodeName: node-a\n  electLeader: true\n${extra}`
  );
}

function messages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

test('-v reports a cluster section error with file and line and exits 1', async (t) => {
  const dir = await useTempDir(t);
  const config = await writeConfig(dir, `${JOBS}cluster:\n  listen: "8443"\n  interval: 0\n`);
  const result = await runCli(['-v', '-c', config]);
  assert.equal(result.code, 1);
  const [message] = messages(result.stderr);
  assert.match(
    message ?? '',
    /^Configuration error: Cannot load .*jobs\.yaml at cluster\.interval \(line 7\): cluster\.interval must be > 0\n/,
  );
  assert.match(
    message ?? '',
    /at cluster\.listen \(line 6\): cluster\.listen must be host:port, got '8443'/,
  );
  assert.match(
    message ?? '',
    /at cluster\.tls \(line 5\): cluster\.backend gossip requires cluster\.tls/,
  );
});

test('-v warns about certificate files absent here, logs advisories, and accepts the section', async (t) => {
  const dir = await useTempDir(t);
  const config = await writeConfig(
    dir,
    clusterSection({ ca: '/run/certs/ca.pem', cert: '/run/certs/a.pem', key: '/run/certs/a.key' }),
  );
  const result = await runCli(['-v', '-c', config]);
  assert.equal(result.code, 0, result.stderr);
  const lines = messages(result.stderr);
  assert.ok(
    lines.includes('cluster.tls.ca /run/certs/ca.pem does not exist here; it is not checked'),
    lines.join('\n'),
  );
  assert.ok(
    lines.includes('cluster.tls.key /run/certs/a.key does not exist here; it is not checked'),
  );
  assert.equal(lines.at(-1), 'Configuration is valid.');
});

test('-v fails on a key that does not match its certificate, and on a truncated CA', async (t) => {
  const dir = await useTempDir(t);
  const ca = makeTestCa('cli');
  const a = ca.issue('node-a', ['DNS:node-a']);
  const b = ca.issue('node-b', ['DNS:node-b']);
  const mismatched = await writeConfig(
    dir,
    clusterSection({ ca: ca.caPath, cert: a.certPath, key: b.keyPath }),
    'mismatch.yaml',
  );
  const result = await runCli(['-v', '-c', mismatched]);
  assert.equal(result.code, 1);
  assert.ok(
    messages(result.stderr).some((line) =>
      line.startsWith(
        `Configuration error: cluster.tls.key ${b.keyPath} does not match cluster.tls.cert ${a.certPath}: `,
      ),
    ),
    result.stderr,
  );
  const truncated = join(dir, 'truncated-ca.pem');
  await writeConfig(dir, '-----BEGIN CERTIFICATE-----\nMIIB\n', 'truncated-ca.pem');
  const broken = await writeConfig(
    dir,
    clusterSection({ ca: truncated, cert: a.certPath, key: a.keyPath }),
    'broken.yaml',
  );
  const brokenResult = await runCli(['-v', '-c', broken]);
  assert.ok(
    messages(brokenResult.stderr).includes(
      `Configuration error: cluster.tls.ca ${truncated} is not usable: a PEM block is not terminated (a half-written file?)`,
    ),
    brokenResult.stderr,
  );
});

test('-v logs the advisories of a valid section (an even election cluster)', async (t) => {
  const dir = await useTempDir(t);
  const ca = makeTestCa('cli-advice');
  const a = ca.issue('node-a', ['DNS:node-a']);
  const yaml = clusterSection({ ca: ca.caPath, cert: a.certPath, key: a.keyPath }).replace(
    '    - host: c.internal:8443\n',
    '    - host: c.internal:8443\n    - host: d.internal:8443\n',
  );
  const result = await runCli(['-v', '-c', await writeConfig(dir, yaml)]);
  const lines = messages(result.stderr);
  assert.ok(
    lines.some((line) => line.startsWith('cluster.electLeader: an even cluster size (4 nodes)')),
    lines.join('\n'),
  );
});

test('--job-set-id works for a config with a cluster section (the section is not part of the id)', async (t) => {
  const dir = await useTempDir(t);
  const plain = await runCli(['--job-set-id', '-c', await writeConfig(dir, JOBS, 'plain.yaml')]);
  const clustered = await runCli([
    '--job-set-id',
    '-c',
    await writeConfig(
      dir,
      clusterSection({ ca: 'ca.pem', cert: 'a.pem', key: 'a.key' }),
      'clustered.yaml',
    ),
  ]);
  assert.equal(clustered.code, 0, clustered.stderr);
  assert.equal(clustered.stdout, plain.stdout);
});
