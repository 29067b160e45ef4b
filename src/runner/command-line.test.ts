import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { buildChildEnvironment } from './child-environment.js';
import { buildCommandArgv, wrapWithSetpriv } from './command-line.js';
import { makeJob } from './job-fixture.test.js';

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

void test('buildChildEnvironment() is null when neither the job nor the caller adds variables', () => {
  assert.equal(buildChildEnvironment(makeJob(), { PATH: '/bin' }, undefined), null);
  assert.equal(buildChildEnvironment(makeJob(), { PATH: '/bin' }, {}), null);
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
    {
      B: 'injected',
    },
  );
  assert.deepEqual(env, { A: 'job', B: 'injected', C: 'daemon' });
});

void test('buildChildEnvironment() builds an environment for a job with an empty env_file', () => {
  assert.deepEqual(
    buildChildEnvironment(makeJob({ hasEnvironment: true }), { X: '1' }, undefined),
    {
      X: '1',
    },
  );
});
