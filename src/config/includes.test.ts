// `include` and the defaults layers (docs/configuration.md "include", "defaults and merging"):
// job order, whose defaults apply, path resolution, diamonds, crontab includes and section
// adoption.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { expectConfigErrorIn, loadTree, writeTree } from './config-fixture.test.js';
import { loadConfig } from './index.js';

function job(name: string, extra = ''): string {
  return `  - name: ${name}\n    command: echo ${name}\n    schedule: "@daily"\n${extra}`;
}

void test('included jobs come first, in include order, then the inline jobs', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `include:\n  - b.yaml\n  - a.yaml\njobs:\n${job('inline')}`,
    'a.yaml': `jobs:\n${job('from-a')}`,
    'b.yaml': `jobs:\n${job('from-b')}`,
  });
  assert.deepEqual(
    config.jobs.map((j) => j.name),
    ['from-b', 'from-a', 'inline'],
  );
});

void test("an included file's jobs use its own defaults, never the includer's", async () => {
  const { config } = await loadTree({
    'jobs.yaml': `include:\n  - lib.yaml\ndefaults:\n  shell: /bin/includer\njobs:\n${job('inline')}`,
    'lib.yaml': `defaults:\n  killTimeout: 5\njobs:\n${job('lib')}`,
  });
  const [lib, inline] = config.jobs;
  assert.equal(lib?.shell, '/bin/sh');
  assert.equal(lib?.killTimeoutMs, 5000);
  assert.equal(inline?.shell, '/bin/includer');
  assert.equal(inline?.killTimeoutMs, 5000, 'included defaults are a layer under the own defaults');
});

void test('precedence for inline jobs: built-ins < included defaults < own defaults < job keys', async () => {
  const { config } = await loadTree({
    'jobs.yaml': [
      'include:',
      '  - _base.yaml',
      'defaults:',
      '  saveLimit: 20',
      '  killTimeout: 2',
      'jobs:',
      job('inline', '    killTimeout: 3\n'),
    ].join('\n'),
    '_base.yaml': 'defaults:\n  saveLimit: 10\n  maxLineLength: 99\n  captureStdout: yes\n',
  });
  const inline = config.jobs[0]!;
  assert.equal(inline.captureStdout, true, 'from the included defaults');
  assert.equal(inline.maxLineLength, 99, 'from the included defaults');
  assert.equal(inline.saveLimit, 20, 'own defaults beat included defaults');
  assert.equal(inline.killTimeoutMs, 3000, 'job keys beat own defaults');
  assert.equal(inline.captureStderr, true, 'built-in');
});

void test('a later include without defaults does not reset an earlier include (docs/deviations.md)', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `include:\n  - _shell.yaml\n  - _jobs-only.yaml\njobs:\n${job('inline')}`,
    '_shell.yaml': 'defaults:\n  shell: /bin/bash\n',
    '_jobs-only.yaml': `jobs:\n${job('other')}`,
  });
  assert.equal(config.jobs.find((j) => j.name === 'inline')?.shell, '/bin/bash');
});

void test('defaults of several includes merge deeply in include order', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `include:\n  - _one.yaml\n  - _two.yaml\njobs:\n${job('inline')}`,
    '_one.yaml': [
      'defaults:',
      '  environment:',
      '    - key: A',
      '      value: one',
      '    - key: B',
      '      value: one',
      '  failsWhen:',
      '    producesStdout: yes',
      '    always: yes',
      '',
    ].join('\n'),
    '_two.yaml': [
      'defaults:',
      '  environment:',
      '    - key: B',
      '      value: two',
      '  failsWhen:',
      '    producesStdout: no',
      '',
    ].join('\n'),
  });
  const inline = config.jobs[0]!;
  assert.deepEqual(inline.environment, [
    { key: 'A', value: 'one' },
    { key: 'B', value: 'two' },
  ]);
  assert.deepEqual(inline.failsWhen, {
    producesStdout: false,
    producesStderr: true,
    nonzeroReturn: true,
    always: true,
  });
});

void test('include paths resolve against the including file; absolute paths are used as-is', async () => {
  const dir = writeTree({
    'etc/jobs.yaml': 'include:\n  - parts/a.yaml\n',
    'etc/parts/a.yaml': 'include:\n  - ../b.yaml\n',
    'etc/b.yaml': `jobs:\n${job('b')}`,
    'elsewhere/c.yaml': `jobs:\n${job('c')}`,
  });
  const { config } = await loadTree({
    'jobs.yaml': `include:\n  - ${path.join(dir, 'etc/jobs.yaml')}\n  - ${path.join(dir, 'elsewhere/c.yaml')}\n`,
  });
  assert.deepEqual(
    config.jobs.map((j) => j.name),
    ['b', 'c'],
  );
});

void test('a diamond include is fine: the shared file contributes its jobs once', async () => {
  const { config } = await loadTree({
    'jobs.yaml': 'include:\n  - left.yaml\n  - right.yaml\n',
    'left.yaml': 'include:\n  - shared.yaml\n',
    'right.yaml': 'include:\n  - shared.yaml\n',
    'shared.yaml': `logging:\n  version: 1\njobs:\n${job('shared')}`,
  });
  assert.deepEqual(
    config.jobs.map((j) => j.name),
    ['shared'],
  );
  assert.equal(config.logging?.version, 1);
});

void test("an included file's logging section is adopted when the includer has none", async () => {
  const { config } = await loadTree({
    'jobs.yaml': 'include:\n  - _logging.yaml\n',
    '_logging.yaml': 'logging:\n  version: 1\n  incremental: yes\n',
  });
  assert.deepEqual({ ...config.logging }, { version: 1, incremental: true });
});

void test('an included crontab (by name or by content) gets built-in defaults only', async () => {
  const { config } = await loadTree({
    'jobs.yaml': `include:\n  - extra.cron\n  - legacy-tab\ndefaults:\n  shell: /bin/bash\n  killTimeout: 1\njobs:\n${job('inline')}`,
    'extra.cron': '*/5 * * * * echo five\n',
    'legacy-tab': '# legacy\nMAILTO=""\n@hourly echo hourly\n',
  });
  const byName = new Map(config.jobs.map((j) => [j.name, j]));
  assert.deepEqual([...byName.keys()], ['extra.cron:1', 'legacy-tab:3', 'inline']);
  assert.equal(byName.get('extra.cron:1')?.shell, '/bin/sh');
  assert.equal(byName.get('legacy-tab:3')?.killTimeoutMs, 30_000);
  assert.equal(byName.get('inline')?.shell, '/bin/bash');
});

void test('a .yaml include is never sniffed as a crontab', async () => {
  const dir = writeTree({ 'jobs.yaml': 'include:\n  - tab.yaml\n', 'tab.yaml': '@daily echo\n' });
  await assert.rejects(loadConfig('jobs.yaml', { cwd: dir }), /Cannot load tab\.yaml/);
});

void test('the same file reached through a symlink is one file (jobs once, cycles caught)', async () => {
  const dir = writeTree({
    'jobs.yaml': 'include:\n  - shared.yaml\n  - link.yaml\n',
    'shared.yaml': `jobs:\n${job('shared')}`,
  });
  symlinkSync(path.join(dir, 'shared.yaml'), path.join(dir, 'link.yaml'));
  const config = await loadConfig('jobs.yaml', { cwd: dir });
  assert.deepEqual(
    config.jobs.map((j) => j.name),
    ['shared'],
  );

  const cyclic = writeTree({ 'main.yaml': 'include:\n  - alias.yaml\n' });
  symlinkSync(path.join(cyclic, 'main.yaml'), path.join(cyclic, 'alias.yaml'));
  assert.equal(
    await expectConfigErrorIn(cyclic, 'main.yaml'),
    'Cannot load main.yaml at include[0] (line 2): include cycle detected at alias.yaml',
  );
});
