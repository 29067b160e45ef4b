import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { buildChildEnvironment } from './child-environment.js';
import { buildCommandArgv, wrapWithSetpriv } from './command-line.js';
import { makeJob } from './test-job-fixture.js';

void test('buildCommandArgv() execs a list verbatim and ignores the shell', () => {
  assert.deepEqual(buildCommandArgv({ kind: 'argv', argv: ['echo', '$HOME', '*'] }, '/bin/bash'), [
    'echo',
    '$HOME',
    '*',
  ]);
});

void test('buildCommandArgv() runs a string through [shell, -c, script], /bin/sh for an empty shell', () => {
  assert.deepEqual(buildCommandArgv({ kind: 'shell', script: 'echo hi' }, '/bin/bash'), [
    '/bin/bash',
    '-c',
    'echo hi',
  ]);
  assert.deepEqual(buildCommandArgv({ kind: 'shell', script: 'echo hi' }, ''), [
    '/bin/sh',
    '-c',
    'echo hi',
  ]);
});

void test('wrapWithSetpriv() uses initgroups only when login name and gid are known', () => {
  assert.deepEqual(
    wrapWithSetpriv('/usr/bin/setpriv', { uid: 65534, gid: 65534, userName: 'nobody' }, ['id']),
    ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--init-groups', '--', 'id'],
  );
  assert.deepEqual(wrapWithSetpriv('setpriv', { uid: 4242, gid: null, userName: null }, ['id']), [
    'setpriv',
    '--reuid=4242',
    '--clear-groups',
    '--',
    'id',
  ]);
  assert.deepEqual(wrapWithSetpriv('setpriv', { uid: null, gid: 7, userName: null }, ['id']), [
    'setpriv',
    '--regid=7',
    '--clear-groups',
    '--',
    'id',
  ]);
});

const NONE: ReadonlySet<string> = new Set();

void test('buildChildEnvironment() inherits as-is when neither the job nor the caller adds variables', () => {
  for (const extra of [undefined, {}]) {
    assert.deepEqual(buildChildEnvironment(makeJob(), { PATH: '/bin' }, extra, NONE), {
      spawnEnv: undefined,
      environment: null,
    });
  }
});

void test('buildChildEnvironment() layers daemon env < job environment < injected variables', () => {
  const job = makeJob({
    hasEnvironment: true,
    environment: [
      { key: 'A', value: 'job' },
      { key: 'B', value: 'job' },
    ],
  });
  const env = buildChildEnvironment(
    job,
    { A: 'daemon', B: 'daemon', C: 'daemon', D: undefined },
    { B: 'injected' },
    NONE,
  );
  assert.deepEqual(env.spawnEnv, { A: 'job', B: 'injected', C: 'daemon' });
  assert.equal(env.environment, env.spawnEnv);
});

void test('buildChildEnvironment() builds an environment for a job with an empty env_file', () => {
  assert.deepEqual(
    buildChildEnvironment(makeJob({ hasEnvironment: true }), { X: '1' }, undefined, NONE)
      .environment,
    { X: '1' },
  );
});

void test('buildChildEnvironment() leaves out the variables secret sources name, unless the job inherits them', () => {
  const secret = new Set(['TOKEN', 'ABSENT']);
  const daemon = { PATH: '/bin', TOKEN: 's3cr3t' };
  // Nothing of the job's own: a stripped copy is spawned, and the reports' environment stays null.
  assert.deepEqual(buildChildEnvironment(makeJob(), daemon, undefined, secret), {
    spawnEnv: { PATH: '/bin' },
    environment: null,
  });
  const own = buildChildEnvironment(makeJob(), daemon, { YACRON2_RUN_ID: 'r' }, secret);
  assert.deepEqual(own.environment, { PATH: '/bin', YACRON2_RUN_ID: 'r' });
  // The job's own entry of the same name is deliberate and wins.
  const written = makeJob({ hasEnvironment: true, environment: [{ key: 'TOKEN', value: 'mine' }] });
  assert.deepEqual(buildChildEnvironment(written, daemon, undefined, secret).spawnEnv, {
    PATH: '/bin',
    TOKEN: 'mine',
  });
  const inherits = makeJob({ inheritSecretEnvVars: true });
  assert.deepEqual(buildChildEnvironment(inherits, daemon, undefined, secret), {
    spawnEnv: undefined,
    environment: null,
  });
  // None of the names is set in the daemon's environment: inherit as-is.
  assert.equal(
    buildChildEnvironment(makeJob(), { PATH: '/bin' }, undefined, secret).spawnEnv,
    undefined,
  );
});
