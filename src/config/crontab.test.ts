// Classic crontab files (docs/configuration.md "Classic crontab files") and the content sniff for
// neutral names.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { looksLikeCrontab } from './crontab.js';
import { expectConfigError, loadJobs } from './config-fixture.test.js';

void test('entries become jobs named <basename>:<line> with built-in defaults', async () => {
  const jobs = await loadJobs(
    { 'etc/app.crontab': '# header\n\n*/5 * * * *   /usr/bin/backup --all\n' },
    'etc/app.crontab',
  );
  assert.equal(jobs.length, 1);
  const [job] = jobs;
  assert.equal(job?.name, 'app.crontab:3');
  assert.deepEqual(job?.command, { kind: 'shell', script: '/usr/bin/backup --all' });
  assert.equal(job?.schedule.kind === 'cron' && job.schedule.text, '*/5 * * * *');
  assert.equal(job?.shell, '/bin/sh');
  assert.equal(job?.timezone, 'UTC');
  assert.equal(job?.captureStderr, true);
  assert.equal(job?.captureStdout, false);
  assert.equal(job?.hasEnvironment, false);
  assert.deepEqual(job?.source, { file: 'etc/app.crontab', line: 3 });
});

void test('assignments apply to following entries only; quotes are stripped; SHELL and CRON_TZ take effect', async () => {
  const jobs = await loadJobs(
    {
      crontab: [
        '@reboot echo first',
        'MAILTO = "ops@example.com"',
        "GREETING='hello world'",
        'SHELL=/bin/bash',
        'CRON_TZ=Europe/Paris',
        '0 6 * * 1-5 echo $GREETING',
        '',
      ].join('\n'),
    },
    'crontab',
  );
  const [first, second] = jobs;
  assert.deepEqual(first?.schedule, { kind: 'reboot', text: '@reboot' });
  assert.deepEqual(first?.environment, []);
  assert.equal(first?.timezone, 'UTC');
  assert.equal(second?.name, 'crontab:6');
  assert.deepEqual(second?.environment, [
    { key: 'MAILTO', value: 'ops@example.com' },
    { key: 'GREETING', value: 'hello world' },
    { key: 'SHELL', value: '/bin/bash' },
    { key: 'CRON_TZ', value: 'Europe/Paris' },
  ]);
  assert.equal(second?.shell, '/bin/bash');
  assert.equal(second?.timezone, 'Europe/Paris');
  assert.equal(
    second?.schedule.kind === 'cron' && second.schedule.schedule.timezone,
    'Europe/Paris',
  );
});

void test('\\% is a literal percent sign', async () => {
  const jobs = await loadJobs({ 'x.cron': '0 0 * * * date +\\%F\n' }, 'x.cron');
  assert.deepEqual(jobs[0]?.command, { kind: 'shell', script: 'date +%F' });
});

void test('@midnight means @daily; nicknames are exact lower-case words', async () => {
  const jobs = await loadJobs({ 'x.cron': '@midnight true\n@hourly true\n' }, 'x.cron');
  assert.deepEqual(
    jobs.map((job) => job.schedule.kind === 'cron' && job.schedule.text),
    ['@daily', '@hourly'],
  );
  assert.match(
    await expectConfigError({ 'y.cron': '@Daily true\n' }, 'y.cron'),
    /^Cannot load y\.cron at schedule \(line 1\): unknown schedule nickname '@Daily'/,
  );
});

void test('a crontab-named file is a crontab whatever its case (CRONTAB, x.CRON)', async () => {
  const jobs = await loadJobs({ CRONTAB: '@daily true\n' }, 'CRONTAB');
  assert.equal(jobs[0]?.name, 'CRONTAB:1');
});

void test('a neutrally named config file is sniffed: crontab content loads as a crontab', async () => {
  const jobs = await loadJobs(
    { 'schedule.conf': '# jobs\n15 3 * * * /bin/true\n' },
    'schedule.conf',
  );
  assert.equal(jobs[0]?.name, 'schedule.conf:2');
});

void test('a neutrally named file with YAML content loads as YAML', async () => {
  const jobs = await loadJobs(
    { 'jobs.conf': 'jobs:\n  - name: y\n    command: x\n    schedule: "@daily"\n' },
    'jobs.conf',
  );
  assert.equal(jobs[0]?.name, 'y');
});

void test('looksLikeCrontab() looks at the first meaningful line only', () => {
  assert.equal(looksLikeCrontab('\n# c\nPATH=/usr/bin\njobs:\n'), true);
  assert.equal(looksLikeCrontab('@reboot echo hi\n'), true);
  assert.equal(looksLikeCrontab('0 5 * * mon-fri echo hi\n'), true);
  assert.equal(looksLikeCrontab('jobs:\n  - name: a\n'), false);
  assert.equal(looksLikeCrontab('- a b c d e f\n'), false);
  assert.equal(looksLikeCrontab('0 5 * * * \n'), false, 'five fields without a command');
  assert.equal(looksLikeCrontab('99 5 * * * echo\n'), false, 'invalid fields');
  assert.equal(looksLikeCrontab(''), false);
});

void test("lines end where Python's splitlines ends them, so names match the reference's", async () => {
  const breaks = ['\f', '\v', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029', '\r\n', '\r'];
  for (const separator of breaks) {
    const jobs = await loadJobs(
      { 'odd.crontab': `# one${separator}# two\n*/5 * * * * echo after\n` },
      'odd.crontab',
    );
    assert.equal(jobs[0]?.name, 'odd.crontab:3', JSON.stringify(separator));
  }
});

void test('an empty SHELL= keeps the default shell; the name still joins the environment', async () => {
  const jobs = await loadJobs(
    { tab: 'SHELL=\n* * * * * echo default\nSHELL=/bin/bash\n0 * * * * echo bash\n' },
    'tab',
  );
  assert.deepEqual(
    jobs.map((job) => [job.name, job.shell, job.environment.map((entry) => entry.key)]),
    [
      ['tab:2', '/bin/sh', ['SHELL']],
      ['tab:4', '/bin/bash', ['SHELL']],
    ],
  );
});
