// Directory mode (docs/configuration.md "Directory mode"): sorted entries, skipping rules,
// per-file defaults, singletons.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { expectConfigError, loadTree } from './config-fixture.test.js';

function job(name: string): string {
  return `  - name: ${name}\n    command: echo ${name}\n    schedule: "@daily"\n`;
}

void test('files are taken in sorted name order and their jobs concatenated', async () => {
  const { config } = await loadTree(
    {
      'conf.d/20-b.yaml': `jobs:\n${job('b')}`,
      'conf.d/10-a.yml': `jobs:\n${job('a')}`,
      'conf.d/30-c.crontab': '@daily echo c\n',
    },
    'conf.d',
  );
  assert.deepEqual(
    config.jobs.map((j) => j.name),
    ['a', 'b', '30-c.crontab:1'],
  );
});

void test('underscore and dot files, other extensions and upper-case extensions are skipped', async () => {
  const { config } = await loadTree(
    {
      'conf.d/_fragment.yaml': `jobs:\n${job('fragment')}`,
      'conf.d/.hidden.yaml': `jobs:\n${job('hidden')}`,
      'conf.d/notes.txt': 'not yaml: [',
      'conf.d/UPPER.YAML': `jobs:\n${job('upper')}`,
      'conf.d/README': '* * * * * echo sniffing is off in directory mode\n',
      'conf.d/main.yaml': `jobs:\n${job('main')}`,
    },
    'conf.d',
  );
  assert.deepEqual(
    config.jobs.map((j) => j.name),
    ['main'],
  );
});

void test('an empty or all-skipped directory is a valid empty config', async () => {
  const { config } = await loadTree({ 'conf.d/_only.yaml': '' }, 'conf.d');
  assert.deepEqual(config.jobs, []);
});

void test('defaults never cross files; an underscore fragment shares them by include', async () => {
  const { config } = await loadTree(
    {
      'conf.d/_shared.yaml': 'defaults:\n  shell: /bin/bash\n',
      'conf.d/a.yaml': `defaults:\n  killTimeout: 1\njobs:\n${job('a')}`,
      'conf.d/b.yaml': `jobs:\n${job('b')}`,
      'conf.d/c.yaml': `include:\n  - _shared.yaml\njobs:\n${job('c')}`,
    },
    'conf.d',
  );
  const [a, b, c] = config.jobs;
  assert.equal(a?.killTimeoutMs, 1000);
  assert.equal(b?.killTimeoutMs, 30_000);
  assert.equal(b?.shell, '/bin/sh');
  assert.equal(c?.shell, '/bin/bash');
});

void test('a fragment included by two files contributes its jobs once', async () => {
  const { config } = await loadTree(
    {
      'conf.d/_common.yaml': `jobs:\n${job('common')}`,
      'conf.d/a.yaml': 'include:\n  - _common.yaml\n',
      'conf.d/b.yaml': 'include:\n  - _common.yaml\n',
    },
    'conf.d',
  );
  assert.deepEqual(
    config.jobs.map((j) => j.name),
    ['common'],
  );
});

void test('a second logging section in the directory is refused, naming both files', async () => {
  assert.equal(
    await expectConfigError(
      {
        'conf.d/a.yaml': 'logging:\n  version: 1\n',
        'conf.d/b.yaml': 'jobs:\nlogging:\n  version: 1\n',
      },
      'conf.d',
    ),
    "Cannot load conf.d/b.yaml at logging (line 2): Multiple 'logging' configurations found: first in conf.d/a.yaml (line 1), now in conf.d/b.yaml (line 2)",
  );
});

void test('job names must be unique across the directory', async () => {
  assert.equal(
    await expectConfigError(
      { 'conf.d/a.yaml': `jobs:\n${job('x')}`, 'conf.d/b.yaml': `jobs:\n${job('x')}` },
      'conf.d',
    ),
    "Cannot load conf.d/b.yaml at jobs[0].name (line 2): duplicate job name 'x' (first defined in conf.d/a.yaml at jobs[0].name (line 2))",
  );
});
