import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeJob } from '../config/testing.js';
import { RunRegistry } from './run-registry.js';

const context = (runId: string) => ({
  job: makeJob({ name: 'report' }),
  runId,
  trigger: 'schedule' as const,
  attempt: 0,
  scheduledAtMs: null,
});

void test('secretValues asked before the run ends is a copy that survives end()', async () => {
  const registry = new RunRegistry();
  registry.register(context('a'.repeat(32)), Promise.resolve(new Map([['API_TOKEN', 's3cr3t']])));
  const values = registry.secretValues('a'.repeat(32));
  registry.end('a'.repeat(32));
  assert.deepEqual(await values, ['s3cr3t']);
  assert.deepEqual(await registry.secretValues('a'.repeat(32)), [], 'an ended run has none');
});

void test('a token authenticates until its run ends, then never again', () => {
  const registry = new RunRegistry();
  const live = registry.register(context('b'.repeat(32)), Promise.resolve(new Map()));
  assert.equal(registry.authenticate(`Bearer ${live.token}`), live);
  assert.equal(registry.authenticate(`bEaReR ${live.token}`), live);
  assert.equal(registry.end('b'.repeat(32)), true);
  assert.equal(registry.authenticate(`Bearer ${live.token}`), undefined);
  assert.equal(live.ended.aborted, true);
});
