// configSignature(): a stat-only fingerprint of every file the parse read, which changes when
// any of them (or the config directory's entry list) changes and not otherwise.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { configSignature } from './index.js';
import { loadTree, singleJob } from './config-fixture.test.js';

void test('the signature is stable while nothing changes', async () => {
  const { config } = await loadTree({ 'jobs.yaml': singleJob('') });
  assert.equal(await configSignature(config), await configSignature(config));
});

void test('editing an included file or an env_file changes the signature', async () => {
  const { dir, config } = await loadTree({
    'jobs.yaml': `include:\n  - _inc.yaml\n${singleJob('env_file: vars.env')}`,
    '_inc.yaml': '',
    'vars.env': 'A=1\n',
  });
  const before = await configSignature(config);
  writeFileSync(path.join(dir, 'vars.env'), 'A=22\n');
  const afterEnv = await configSignature(config);
  assert.notEqual(afterEnv, before);
  const later = new Date(Date.now() + 5000);
  utimesSync(path.join(dir, '_inc.yaml'), later, later);
  assert.notEqual(await configSignature(config), afterEnv);
});

void test('adding a file to the config directory changes the signature', async () => {
  const { dir, config } = await loadTree({ 'conf.d/a.yaml': '' }, 'conf.d');
  const before = await configSignature(config);
  const past = new Date(Date.now() - 60_000);
  utimesSync(path.join(dir, 'conf.d'), past, past);
  const settled = await configSignature(config);
  assert.notEqual(settled, before);
  writeFileSync(path.join(dir, 'conf.d', 'b.yaml'), '');
  assert.notEqual(await configSignature(config), settled);
});

void test('a deleted file shows up as missing instead of throwing', async () => {
  const { dir, config } = await loadTree({ 'jobs.yaml': singleJob('') });
  rmSync(path.join(dir, 'jobs.yaml'));
  assert.match(await configSignature(config), /jobs\.yaml\tmissing:ENOENT/);
});
