// E2E: the command line outside the daemon loop: --version, -v, --job-set-id, the default config
// path, usage errors and `next`, with their exit codes (docs/cli.md "Running", "Exit codes").
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, runCli, shellQuote, useTempDir, writeConfig } from './harness.js';

const JOB_SET_ID = /^v1:[0-9a-f]{64}\n$/;

function job(name: string, command = `echo ${name}`): string {
  return `  - name: ${name}\n    command: ${command}\n    schedule: "*/5 * * * *"\n`;
}

test('--version prints the package version and exits 0 without reading any config', async () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  const result = await runCli(['--version', '-c', '/nonexistent/yacron2.yaml']);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, `${version}\n`);
  assert.equal(result.stderr, '');
});

test('-v on a valid config logs "Configuration is valid." and exits 0 without running jobs', async (t) => {
  const dir = await useTempDir(t);
  const marker = join(dir, 'ran');
  const config = await writeConfig(
    dir,
    `jobs:\n${job('boot', `touch ${shellQuote(marker)}`).replace('*/5 * * * *', '@reboot')}${job('every')}`,
  );
  const result = await runCli(['-v', '-c', config]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /"msg":"Configuration is valid\."/);
  assert.equal(result.stdout, '');
  assert.equal(existsSync(marker), false, 'a job ran during -v');
});

const MALFORMED: readonly {
  readonly what: string;
  readonly files: Readonly<Record<string, string>>;
  readonly message: RegExp;
}[] = [
  {
    what: 'bad YAML indentation',
    files: { 'main.yaml': 'jobs:\n  - name: a\n    command: echo\n   schedule: "* * * * *"\n' },
    message: /main\.yaml .*\(line 4\): invalid YAML/,
  },
  {
    what: 'an unknown job key',
    files: { 'main.yaml': `jobs:\n${job('a')}    bogus: 1\n` },
    message: /main\.yaml at jobs\[0\]\.bogus \(line 5\): unknown key 'bogus'/,
  },
  {
    what: 'a cron minute out of range',
    files: { 'main.yaml': `jobs:\n${job('a').replace('*/5 * * * *', '61 * * * *')}` },
    message: /main\.yaml at jobs\[0\]\.schedule \(line 4\): invalid schedule '61 \* \* \* \*'/,
  },
  {
    what: 'duplicate job names',
    files: { 'main.yaml': `jobs:\n${job('a')}${job('a', 'echo again')}` },
    message: /main\.yaml at jobs\[1\]\.name \(line 5\): duplicate job name 'a'/,
  },
  {
    what: 'an include cycle',
    files: {
      'main.yaml': `include:\n  - other.yaml\njobs:\n${job('a')}`,
      'other.yaml': 'include:\n  - main.yaml\n',
    },
    message: /\.yaml at include\[0\] \(line 2\): include cycle detected/,
  },
];

for (const { what, files, message } of MALFORMED) {
  test(`-v on a config with ${what} exits 1 with "Configuration error:" naming file and line, no stack`, async (t) => {
    const dir = await useTempDir(t);
    for (const [name, yaml] of Object.entries(files)) await writeConfig(dir, yaml, name);
    const result = await runCli(['-v', '-c', join(dir, 'main.yaml')]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /"msg":"Configuration error: Cannot load /);
    assert.match(result.stderr, message);
    assert.doesNotMatch(result.stderr, / {4}at /);
    assert.equal(result.stdout, '');
  });
}

test('-v on a missing config file exits 1 with "Configuration error:" naming the file, no stack', async (t) => {
  const dir = await useTempDir(t);
  const result = await runCli(['-v', '-c', join(dir, 'absent.yaml')]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /"msg":"Configuration error: Cannot load [^"]*absent\.yaml: /);
  assert.doesNotMatch(result.stderr, / {4}at /);
});

test('-v reports a web authToken that resolves empty, although the daemon would still run its jobs', async (t) => {
  const dir = await useTempDir(t);
  const path = await writeConfig(
    dir,
    'web:\n  listen:\n    - http://127.0.0.1:1\n  authToken:\n    fromEnvVar: YACRON2_TEST_UNSET_TOKEN\n',
  );
  const env = { ...process.env };
  delete env.YACRON2_TEST_UNSET_TOKEN;
  const result = await runCli(['-v', '-c', path], { env });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /Configuration error: web\.authToken is configured but resolved to an empty token/,
  );
});

test('the daemon refuses a malformed config with exit 1 before running anything', async (t) => {
  const dir = await useTempDir(t);
  const config = await writeConfig(dir, `jobs:\n${job('a').replace('*/5 * * * *', '61 * * * *')}`);
  const result = await runCli(['-c', config]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /"msg":"Configuration error: /);
  assert.doesNotMatch(result.stderr, / {4}at /);
});

test('--job-set-id prints v1:<64 hex> and stays the same when jobs are reordered or moved between two files', async (t) => {
  const root = await useTempDir(t);
  const layouts: readonly (readonly [string, string])[] = [
    [`jobs:\n${job('j1')}${job('j2')}`, `jobs:\n${job('j3')}${job('j4')}`],
    [`jobs:\n${job('j2')}${job('j1')}`, `jobs:\n${job('j4')}${job('j3')}`],
    [`jobs:\n${job('j4')}${job('j1')}`, `jobs:\n${job('j3')}${job('j2')}`],
  ];
  const ids: string[] = [];
  for (const [index, [a, b]] of layouts.entries()) {
    const dir = join(root, `layout${index}`);
    await mkdir(dir);
    await writeConfig(dir, a, 'a.yaml');
    await writeConfig(dir, b, 'b.yaml');
    const result = await runCli(['--job-set-id', '-c', dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, JOB_SET_ID);
    ids.push(result.stdout);
  }
  assert.equal(new Set(ids).size, 1, `ids differ: ${ids.join('')}`);

  // A changed command is a different job set; --job-set-id wins over -v.
  const changed = join(root, 'changed');
  await mkdir(changed);
  await writeConfig(changed, `jobs:\n${job('j1', 'echo changed')}${job('j2')}`, 'a.yaml');
  await writeConfig(changed, `jobs:\n${job('j3')}${job('j4')}`, 'b.yaml');
  const result = await runCli(['--job-set-id', '-v', '-c', changed]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, JOB_SET_ID);
  assert.notEqual(result.stdout, ids[0]);
});

test("--job-set-id prints the Python reference's id for its golden configurations", async () => {
  // Three of the reference's golden cases (test/golden/fingerprint/README.md), run from their own
  // folder as the reference was; every case is checked in detail by the config unit tests.
  for (const name of ['ref-test-golden', 'dags-ignored-golden', 'crontab-file']) {
    const caseDir = join(REPO_ROOT, 'test/golden/fingerprint', name);
    const expected = JSON.parse(readFileSync(join(caseDir, 'expected.json'), 'utf8')) as {
      config: string;
      job_set_id: string;
    };
    const result = await runCli(['--job-set-id', '-c', expected.config], { cwd: caseDir });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${expected.job_set_id}\n`, name);
  }
});

test('--job-set-id answers for a config with cluster and dags sections (they never count); -v accepts both', async (t) => {
  const dir = await useTempDir(t);
  const plain = await writeConfig(dir, `jobs:\n${job('a')}`, 'plain.yaml');
  const sections = [
    'cluster:',
    '  backend: filesystem',
    '  filesystem:',
    '    path: /mnt/shared',
    'state:',
    '  path: ./state',
    'dags:',
    '  - name: nightly',
    '    schedule: "0 1 * * *"',
    '    tasks:',
    '      - id: only',
    '        command: echo only',
  ].join('\n');
  const full = await writeConfig(dir, `jobs:\n${job('a')}${sections}\n`, 'full.yaml');
  const expected = await runCli(['--job-set-id', '-c', plain]);
  const result = await runCli(['--job-set-id', '-c', full]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, expected.stdout);
  const validate = await runCli(['-v', '-c', full]);
  assert.equal(validate.code, 0, validate.stderr);
  const clusterOnly = await writeConfig(
    dir,
    `jobs:\n${job('a')}${sections.split('state:')[0]}`,
    'c.yaml',
  );
  assert.equal((await runCli(['--job-set-id', '-c', clusterOnly])).stdout, expected.stdout);
  const validateCluster = await runCli(['-v', '-c', clusterOnly]);
  assert.equal(validateCluster.code, 0, validateCluster.stderr);
  assert.match(validateCluster.stderr, /Configuration is valid\./);
});

test('a missing default config path exits 1 with "configuration file not found"', async (t) => {
  if (existsSync('/etc/yacron2.d')) {
    t.skip('/etc/yacron2.d exists on this machine');
    return;
  }
  for (const args of [[], ['-c', '/etc/yacron2.d']]) {
    const result = await runCli(args);
    assert.equal(result.code, 1, `args ${args.join(' ')}: ${result.stderr}`);
    assert.match(
      result.stderr,
      /^yacron2 error: configuration file not found, please provide one with the --config option\n/,
    );
    assert.match(result.stderr, /Usage: yacron2/);
  }
});

test('usage errors exit 2: an unknown option, a bad -l level, a misplaced --', async (t) => {
  const dir = await useTempDir(t);
  const config = await writeConfig(dir, `jobs:\n${job('a')}`);
  const cases: readonly (readonly string[])[] = [
    ['--no-such-option', '-c', config],
    ['-l', 'LOUD', '-v', '-c', config],
    ['-v', '-c', config, '--', 'extra'],
  ];
  for (const args of cases) {
    const result = await runCli(args);
    assert.equal(result.code, 2, `yacron2 ${args.join(' ')}: ${result.stderr}`);
    assert.doesNotMatch(result.stderr, / {4}at /);
  }
});

test('next prints the next N fire times of a 7-field expression, one per line', async () => {
  const result = await runCli([
    'next',
    '*/5 * * * * * *',
    '-n',
    '3',
    '--from',
    '2026-01-01T00:00:00Z',
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stdout,
    '2026-01-01 00:00:05 UTC (+00:00)  2026-01-01T00:00:05Z\n' +
      '2026-01-01 00:00:10 UTC (+00:00)  2026-01-01T00:00:10Z\n' +
      '2026-01-01 00:00:15 UTC (+00:00)  2026-01-01T00:00:15Z\n',
  );
});

test('next evaluates the expression in --tz and rejects a count below 1 with exit 2', async () => {
  const berlin = await runCli([
    'next',
    '30 2 * * *',
    '--tz',
    'Europe/Berlin',
    '-n',
    '2',
    '--from',
    '2026-03-28T12:00:00Z',
  ]);
  assert.equal(berlin.code, 0, berlin.stderr);
  const lines = berlin.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 2);
  // 2026-03-29 is Berlin's spring-forward day: 02:30 does not exist and fires at 03:30 CEST.
  assert.match(lines[0]!, /^2026-03-29 03:30:00 .*\(\+02:00\) {2}2026-03-29T01:30:00Z$/);
  assert.match(lines[1]!, /^2026-03-30 02:30:00 .*\(\+02:00\) {2}2026-03-30T00:30:00Z$/);

  const zero = await runCli(['next', '* * * * *', '-n', '0']);
  assert.equal(zero.code, 2);
});
