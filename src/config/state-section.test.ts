// The `state` section: every key's default, type and range check, located errors, and the
// cross-checks that need a store (secrets, concurrencyScope cluster).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { expectConfigError, loadTree, singleJob } from './config-fixture.test.js';

/** A config with a `state` section whose body lines are given (indented under `state:`). */
function withState(body: string, jobs = 'jobs:'): string {
  const lines = body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `  ${line}`);
  return `${jobs}\nstate:\n${lines.join('\n')}\n`;
}

async function stateError(body: string): Promise<string> {
  return expectConfigError({ 'jobs.yaml': withState(body) });
}

void test('a state section with only a path gets every default', async () => {
  const { dir, config } = await loadTree({ 'jobs.yaml': withState('path: store') });
  assert.deepEqual(config.state, {
    path: path.join(dir, 'store'),
    topology: 'auto',
    deploymentId: null,
    maxRunsPerJob: 1000,
    onStoreUnavailable: 'degrade',
    gcGraceMs: 604_800_000,
    maxOpsPerSecond: 0,
    slotTtlMs: 30_000,
    jobApi: {
      enabled: true,
      listen: null,
      allowNonLoopbackBind: false,
      maxValueBytes: 1_048_576,
      maxArtifactBytes: 67_108_864,
      lockTtlMs: 30_000,
    },
    source: { file: 'jobs.yaml', line: 2 },
  });
  assert.ok(Object.isFrozen(config.state));
  assert.ok(Object.isFrozen(config.state?.jobApi));
});

void test('no state section resolves to null', async () => {
  const { config } = await loadTree({ 'jobs.yaml': 'jobs:\n' });
  assert.equal(config.state, null);
});

void test('every state key is read, with units in the resolved names', async () => {
  const { config } = await loadTree({
    'jobs.yaml': withState(
      [
        'path: /var/lib/yacron2',
        'topology: shared',
        'deploymentId: my-app',
        'maxRunsPerJob: 50',
        'onStoreUnavailable: fail-closed',
        'gcGraceSeconds: 86400',
        'maxOpsPerSecond: 2.5',
        'slotTtlSeconds: 7.5',
        'jobApi:',
        '  enabled: no',
        '  listen: http://127.0.0.1:9000',
        '  maxValueBytes: 10',
        '  maxArtifactBytes: 20',
        '  lockTtlSeconds: 5',
      ].join('\n'),
    ),
  });
  const state = config.state;
  assert.ok(state);
  assert.equal(state.path, '/var/lib/yacron2');
  assert.equal(state.topology, 'shared');
  assert.equal(state.deploymentId, 'my-app');
  assert.equal(state.maxRunsPerJob, 50);
  assert.equal(state.onStoreUnavailable, 'fail-closed');
  assert.equal(state.gcGraceMs, 86_400_000);
  assert.equal(state.maxOpsPerSecond, 2.5);
  assert.equal(state.slotTtlMs, 7500);
  assert.deepEqual(state.jobApi, {
    enabled: false,
    listen: { host: '127.0.0.1', port: 9000 },
    allowNonLoopbackBind: false,
    maxValueBytes: 10,
    maxArtifactBytes: 20,
    lockTtlMs: 5000,
  });
});

void test('maxRunsPerJob <= 0 means unbounded and gcGraceSeconds <= 0 disables GC', async () => {
  const { config } = await loadTree({
    'jobs.yaml': withState('path: s\nmaxRunsPerJob: 0\ngcGraceSeconds: -1'),
  });
  assert.equal(config.state?.maxRunsPerJob, null);
  assert.equal(config.state?.gcGraceMs, null);
  const zero = await loadTree({ 'jobs.yaml': withState('path: s\ngcGraceSeconds: 0') });
  assert.equal(zero.config.state?.gcGraceMs, null);
});

void test('an empty deploymentId is the default namespace', async () => {
  const { config } = await loadTree({ 'jobs.yaml': withState('path: s\ndeploymentId:') });
  assert.equal(config.state?.deploymentId, null);
});

void test('path is required', async () => {
  assert.equal(
    await stateError('topology: auto'),
    "Cannot load jobs.yaml at state (line 2): missing required key 'path'",
  );
  assert.equal(
    await stateError('path: ""'),
    'Cannot load jobs.yaml at state.path (line 3): path must not be empty',
  );
  assert.equal(
    await expectConfigError({ 'jobs.yaml': 'state:\n' }),
    "Cannot load jobs.yaml at state (line 1): the 'state' section needs at least a 'path'",
  );
});

void test('gcGraceSeconds between 1 and 86399 is refused at its line', async () => {
  for (const value of [1, 3600, 86_399]) {
    assert.match(
      await stateError(`path: s\ngcGraceSeconds: ${value}`),
      new RegExp(
        `^Cannot load jobs\\.yaml at state\\.gcGraceSeconds \\(line 4\\): gcGraceSeconds must be <= 0 \\(GC disabled\\) or >= 86400 \\(one day\\), found ${value}`,
      ),
    );
  }
  assert.equal(
    await stateError('path: s\ngcGraceSeconds: 1.5'),
    "Cannot load jobs.yaml at state.gcGraceSeconds (line 4): expected an integer, found '1.5'",
  );
});

void test('lease TTLs below 5 seconds are refused', async () => {
  assert.equal(
    await stateError('path: s\nslotTtlSeconds: 4.9'),
    'Cannot load jobs.yaml at state.slotTtlSeconds (line 4): slotTtlSeconds must be a finite number >= 5, found 4.9',
  );
  assert.equal(
    await stateError('path: s\njobApi:\n  lockTtlSeconds: 1'),
    'Cannot load jobs.yaml at state.jobApi.lockTtlSeconds (line 5): lockTtlSeconds must be a finite number >= 5, found 1',
  );
  assert.match(await stateError('path: s\nslotTtlSeconds: .inf'), /finite number >= 5/);
});

void test('maxOpsPerSecond must be >= 0 and finite', async () => {
  assert.equal(
    await stateError('path: s\nmaxOpsPerSecond: -1'),
    'Cannot load jobs.yaml at state.maxOpsPerSecond (line 4): maxOpsPerSecond must be a finite number >= 0 (0 = unlimited), found -1',
  );
});

void test('lease TTLs over a day are refused (a lease outliving a crash by days means nothing)', async () => {
  assert.equal(
    await stateError('path: s\njobApi:\n  lockTtlSeconds: 10000000'),
    'Cannot load jobs.yaml at state.jobApi.lockTtlSeconds (line 5): lockTtlSeconds must be a finite number between 5 and 86400 (one day), found 10000000',
  );
  assert.match(
    await stateError('path: s\nslotTtlSeconds: 86401'),
    /slotTtlSeconds must be a finite number between 5 and 86400 \(one day\), found 86401/,
  );
});

void test('a positive maxOpsPerSecond below 0.1 is refused: one operation could not wait out its turn', async () => {
  assert.equal(
    await stateError('path: s\nmaxOpsPerSecond: 0.000001'),
    'Cannot load jobs.yaml at state.maxOpsPerSecond (line 4): maxOpsPerSecond must be 0 (unlimited) or at least 0.1 (a store call waits at most 10 s for its turn), found 0.000001',
  );
});

void test('enums, types and unknown keys are checked', async () => {
  assert.equal(
    await stateError('path: s\ntopology: cluster'),
    "Cannot load jobs.yaml at state.topology (line 4): expected one of auto, single-node, shared, found 'cluster'",
  );
  assert.equal(
    await stateError('path: s\nonStoreUnavailable: fail'),
    "Cannot load jobs.yaml at state.onStoreUnavailable (line 4): expected one of degrade, fail-closed, found 'fail'",
  );
  assert.equal(
    await stateError('path: s\nmaxRunsPerJob: many'),
    "Cannot load jobs.yaml at state.maxRunsPerJob (line 4): expected an integer, found 'many'",
  );
  assert.equal(
    await stateError('path: s\ngcGrace: 5'),
    "Cannot load jobs.yaml at state.gcGrace (line 4): unknown key 'gcGrace'",
  );
  assert.equal(
    await stateError('path: s\njobApi:\n  enabled: maybe'),
    "Cannot load jobs.yaml at state.jobApi.enabled (line 5): expected a boolean (yes/no, true/false, on/off, y/n, 1/0), found 'maybe'",
  );
});

void test('jobApi sizes must be >= 0, and 0 means unlimited', async () => {
  assert.equal(
    await stateError('path: s\njobApi:\n  maxValueBytes: -1'),
    'Cannot load jobs.yaml at state.jobApi.maxValueBytes (line 5): maxValueBytes must be >= 0 (0 = unlimited), found -1',
  );
  assert.equal(
    await stateError('path: s\njobApi:\n  maxArtifactBytes: -5'),
    'Cannot load jobs.yaml at state.jobApi.maxArtifactBytes (line 5): maxArtifactBytes must be >= 0 (0 = unlimited), found -5',
  );
  const { config } = await loadTree({
    'jobs.yaml': withState('path: s\njobApi:\n  maxValueBytes: 0\n  maxArtifactBytes: 0'),
  });
  assert.equal(config.state?.jobApi.maxValueBytes, null);
  assert.equal(config.state?.jobApi.maxArtifactBytes, null);
});

void test('deploymentId must be a plain directory name', async () => {
  for (const bad of ['a/b', '..', 'a\\\\b']) {
    assert.match(
      await stateError(`path: s\ndeploymentId: "${bad}"`),
      /^Cannot load jobs\.yaml at state\.deploymentId \(line 4\): deploymentId must be a plain name/,
    );
  }
});

void test('jobApi.listen: http host:port, loopback unless explicitly allowed', async () => {
  assert.match(
    await stateError('path: s\njobApi:\n  listen: unix:///run/y.sock'),
    /^Cannot load jobs\.yaml at state\.jobApi\.listen \(line 5\): listen must be host:port or an http:\/\/host:port URL; a unix:\/\/ socket is not accepted/,
  );
  assert.match(
    await stateError('path: s\njobApi:\n  listen: http://127.0.0.1'),
    /listen must be host:port or an http:\/\/host:port URL \(port 0-65535\)/,
  );
  assert.match(
    await stateError('path: s\njobApi:\n  listen: https://127.0.0.1:1'),
    /listen must be host:port or an http:\/\/host:port URL/,
  );
  assert.match(
    await stateError('path: s\njobApi:\n  listen: http://127.0.0.1:70000'),
    /port 0-65535/,
  );
  assert.match(
    await stateError('path: s\njobApi:\n  listen: http://0.0.0.0:9000'),
    /^Cannot load jobs\.yaml at state\.jobApi\.listen \(line 5\): listen host '0\.0\.0\.0' is not a loopback address.*allowNonLoopbackBind: true/,
  );
  const open = await loadTree({
    'jobs.yaml': withState(
      'path: s\njobApi:\n  listen: http://0.0.0.0:9000\n  allowNonLoopbackBind: yes',
    ),
  });
  assert.deepEqual(open.config.state?.jobApi.listen, { host: '0.0.0.0', port: 9000 });
  const bare = await loadTree({
    'jobs.yaml': withState('path: s\njobApi:\n  listen: localhost:8123'),
  });
  assert.deepEqual(bare.config.state?.jobApi.listen, { host: 'localhost', port: 8123 });
  const v6 = await loadTree({
    'jobs.yaml': withState('path: s\njobApi:\n  listen: http://[::1]:0'),
  });
  assert.deepEqual(v6.config.state?.jobApi.listen, { host: '::1', port: 0 });
});

void test('all problems of the section are reported together', async () => {
  const message = await stateError('path: s\nslotTtlSeconds: 1\ngcGraceSeconds: 10');
  assert.match(message, /state\.gcGraceSeconds \(line 5\)/);
  assert.match(message, /state\.slotTtlSeconds \(line 4\)/);
});

void test('a second state section in a directory is refused', async () => {
  assert.match(
    await expectConfigError(
      { 'a.yaml': withState('path: s'), 'b.yaml': withState('path: t') },
      '.',
    ),
    /Multiple 'state' configurations found: first in a\.yaml \(line 2\), now in b\.yaml \(line 2\)/,
  );
});

void test('a state section in an included file is adopted', async () => {
  const { dir, config } = await loadTree({
    'jobs.yaml': 'include:\n  - _state.yaml\njobs:\n',
    '_state.yaml': 'state:\n  path: s\n',
  });
  assert.equal(config.state?.path, path.join(dir, 's'));
});

void test('secrets are accepted with a state section and the job API enabled', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `${singleJob('secrets:\n  - name: token\n    value: abc')}state:\n  path: s\n`,
  });
  assert.equal(config.jobs[0]?.secrets.length, 1);
});

void test('secrets with the job API disabled fail the cross-check', async () => {
  assert.equal(
    await expectConfigError({
      'jobs.yaml': `${singleJob('secrets:\n  - name: token\n    value: abc')}state:\n  path: s\n  jobApi:\n    enabled: false\n`,
    }),
    "Cannot load jobs.yaml at jobs[0].secrets (line 5): Job test: secrets need a 'state' section with the job API enabled",
  );
});

void test('concurrencyScope cluster is accepted with a state section', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `${singleJob('concurrencyScope: cluster\nconcurrencyPolicy: Forbid')}state:\n  path: s\n`,
  });
  assert.equal(config.jobs[0]?.concurrencyScope, 'cluster');
});

void test('the state section does not change the job-set id', async () => {
  const without = await loadTree({ 'jobs.yaml': singleJob('') });
  const withStore = await loadTree({ 'jobs.yaml': `${singleJob('')}state:\n  path: s\n` });
  assert.equal(withStore.config.jobSetId, without.config.jobSetId);
});
