// loadConfig(): a job in YAML becomes a frozen, fully defaulted ResolvedJob with units in the
// names; strictyaml typing; environment precedence; env_file; user/group; report blocks.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { localTimezone } from '../schedule/index.js';
import {
  expectConfigError,
  loadJobs,
  loadOneJob,
  loadTree,
  singleJob,
  writeTree,
} from './config-fixture.test.js';

void test('a minimal job gets every built-in default', async () => {
  const job = await loadOneJob(singleJob(''));
  assert.equal(job.name, 'test');
  assert.deepEqual(job.command, { kind: 'shell', script: 'echo hi' });
  assert.equal(job.shell, '/bin/sh');
  assert.equal(job.timezone, 'UTC');
  assert.equal(job.enabled, true);
  assert.deepEqual(job.environment, []);
  assert.equal(job.hasEnvironment, false);
  assert.equal(job.user, null);
  assert.equal(job.uid, null);
  assert.equal(job.captureStdout, false);
  assert.equal(job.captureStderr, true);
  assert.equal(job.saveLimit, 4096);
  assert.equal(job.maxLineLength, 16_777_216);
  assert.equal(job.streamPrefix, '[{job_name} {stream_name}] ');
  assert.equal(job.concurrencyPolicy, 'Allow');
  assert.equal(job.concurrencyScope, 'node');
  assert.equal(job.clusterPolicy, 'Leader');
  assert.equal(job.executionTimeoutMs, null);
  assert.equal(job.killTimeoutMs, 30_000);
  assert.deepEqual(job.failsWhen, {
    producesStdout: false,
    producesStderr: true,
    nonzeroReturn: true,
    always: false,
  });
  assert.deepEqual(job.retry, {
    maximumRetries: 0,
    initialDelayMs: 1000,
    maximumDelayMs: 300_000,
    backoffMultiplier: 2,
  });
  const empty = { sentry: null, mail: null, shell: null, webhook: null };
  assert.deepEqual(job.onFailureReport, empty);
  assert.deepEqual(job.onPermanentFailureReport, empty);
  assert.deepEqual(job.onSuccessReport, empty);
  assert.equal(job.statsd, null);
  assert.deepEqual(job.monitorResources, { enabled: false, intervalMs: 1000, history: 240 });
  assert.equal(job.onMissed, 'skip');
  assert.equal(job.startingDeadlineMs, null);
  assert.equal(job.catchupJitterMs, 0);
  assert.equal(job.onlyIfLastSucceeded, false);
  assert.equal(job.archiveOutput, false);
  assert.equal(job.redactArchivedSecrets, true);
  assert.deepEqual(job.secrets, []);
  assert.deepEqual(job.stateAllowedScopes, []);
  assert.match(job.digest, /^[0-9a-f]{64}$/);
  assert.deepEqual(job.source, { file: 'jobs.yaml', line: 2 });
});

void test('the resolved job is deeply frozen', async () => {
  const job = await loadOneJob(
    singleJob(
      'environment:\n  - key: A\n    value: b\nonFailure:\n  report:\n    webhook:\n      headers:\n        X: y',
    ),
  );
  assert.ok(Object.isFrozen(job));
  assert.ok(Object.isFrozen(job.environment));
  assert.ok(Object.isFrozen(job.environment[0]));
  assert.ok(Object.isFrozen(job.failsWhen));
  assert.ok(Object.isFrozen(job.onFailureReport.webhook?.headers));
  assert.throws(() => {
    (job as { name: string }).name = 'other';
  }, TypeError);
});

void test('durations in seconds become milliseconds', async () => {
  const job = await loadOneJob(
    singleJob(
      [
        'killTimeout: 2.5',
        'executionTimeout: 90',
        'startingDeadlineSeconds: 120',
        'catchupJitterSeconds: 7',
        'monitorResources:',
        '  interval: 0.25',
        'onFailure:',
        '  retry:',
        '    maximumRetries: -1',
        '    initialDelay: 0.5',
        '    maximumDelay: 60',
        '    backoffMultiplier: 1.5',
        '  report:',
        '    webhook:',
        '      timeout: 3',
      ].join('\n'),
    ),
  );
  assert.equal(job.killTimeoutMs, 2500);
  assert.equal(job.executionTimeoutMs, 90_000);
  assert.equal(job.startingDeadlineMs, 120_000);
  assert.equal(job.catchupJitterMs, 7000);
  assert.deepEqual(job.monitorResources, { enabled: true, intervalMs: 250, history: 240 });
  assert.deepEqual(job.retry, {
    maximumRetries: -1,
    initialDelayMs: 500,
    maximumDelayMs: 60_000,
    backoffMultiplier: 1.5,
  });
  assert.equal(job.onFailureReport.webhook?.timeoutMs, 3000);
});

void test('bools accept every strictyaml spelling, case-insensitively', async () => {
  const job = await loadOneJob(
    singleJob(
      'enabled: No\ncaptureStdout: ON\ncaptureStderr: n\nonlyIfLastSucceeded: Y\narchiveOutput: 1\nredactArchivedSecrets: off',
    ),
  );
  assert.equal(job.enabled, false);
  assert.equal(job.captureStdout, true);
  assert.equal(job.captureStderr, false);
  assert.equal(job.onlyIfLastSucceeded, true);
  assert.equal(job.archiveOutput, true);
  assert.equal(job.redactArchivedSecrets, false);
});

void test('ints take a sign and underscores; floats take exponents', async () => {
  const job = await loadOneJob(
    singleJob('saveLimit: 4_000\nmaxLineLength: +1024\nkillTimeout: 1e1'),
  );
  assert.equal(job.saveLimit, 4000);
  assert.equal(job.maxLineLength, 1024);
  assert.equal(job.killTimeoutMs, 10_000);
});

void test('string fields keep scalars verbatim (no YAML 1.1 typing)', async () => {
  const job = await loadOneJob(
    singleJob(
      'streamPrefix: yes\nshell: 0755\nenvironment:\n  - key: ON\n    value: 010\n  - key: EMPTY\n    value: ""\n  - key: NULLISH\n    value: null',
    ),
  );
  assert.equal(job.streamPrefix, 'yes');
  assert.equal(job.shell, '0755');
  assert.deepEqual(job.environment, [
    { key: 'ON', value: '010' },
    { key: 'EMPTY', value: '' },
    { key: 'NULLISH', value: 'null' },
  ]);
});

void test('block scalars are fine for commands', async () => {
  const job = await loadOneJob(
    'jobs:\n  - name: test\n    command: |\n      echo one\n      echo two\n    schedule: "* * * * *"\n',
  );
  assert.deepEqual(job.command, { kind: 'shell', script: 'echo one\necho two\n' });
});

void test('a list command is exec argv, kept word for word', async () => {
  const job = await loadOneJob(
    'jobs:\n  - name: test\n    command:\n      - echo\n      - a b\n      - "$HOME"\n    schedule: "* * * * *"\n',
  );
  assert.deepEqual(job.command, { kind: 'argv', argv: ['echo', 'a b', '$HOME'] });
});

void test('an empty document, a comment-only file and an empty jobs key all mean no jobs', async () => {
  for (const text of ['', '# nothing yet\n', 'jobs:\n', 'defaults:\njobs:\ninclude:\n']) {
    const { config } = await loadTree({ 'jobs.yaml': text });
    assert.deepEqual(config.jobs, [], JSON.stringify(text));
  }
});

void test('EmptyNone fields turn an empty value into null', async () => {
  const job = await loadOneJob(
    singleJob(
      'startingDeadlineSeconds:\nonFailure:\n  report:\n    mail:\n      from:\n      to: ops@example.com',
    ),
  );
  assert.equal(job.startingDeadlineMs, null);
  assert.equal(job.onFailureReport.mail?.from, null);
  assert.equal(job.onFailureReport.mail?.to, 'ops@example.com');
});

void test('a string schedule is kept with whitespace collapsed; nicknames are not expanded', async () => {
  const jobs = await loadJobs({
    'jobs.yaml':
      'jobs:\n  - name: a\n    command: x\n    schedule: "  */5   *  * * *  "\n  - name: b\n    command: x\n    schedule: "@daily"\n',
  });
  const [a, b] = jobs;
  assert.equal(a?.schedule.kind === 'cron' && a.schedule.text, '*/5 * * * *');
  assert.equal(b?.schedule.kind === 'cron' && b.schedule.text, '@daily');
});

void test('object schedules render to 5, 6 or 7 fields; 7 fields means second granularity', async () => {
  const jobs = await loadJobs({
    'jobs.yaml': [
      'jobs:',
      '  - name: five',
      '    command: x',
      '    schedule:',
      '      minute: "*/10"',
      '      hour: "3"',
      '  - name: six',
      '    command: x',
      '    schedule:',
      '      minute: "0"',
      '      year: "2030"',
      '  - name: seven',
      '    command: x',
      '    schedule:',
      '      second: "*/15"',
      '',
    ].join('\n'),
  });
  const texts = jobs.map((job) => (job.schedule.kind === 'cron' ? job.schedule.text : ''));
  assert.deepEqual(texts, ['*/10 3 * * *', '0 * * * * 2030', '*/15 * * * * * *']);
  const granular = jobs.map(
    (job) => job.schedule.kind === 'cron' && job.schedule.secondGranularity,
  );
  assert.deepEqual(granular, [false, false, true]);
});

void test('@reboot is its own schedule kind', async () => {
  const job = await loadOneJob('jobs:\n  - name: test\n    command: x\n    schedule: "@reboot"\n');
  assert.deepEqual(job.schedule, { kind: 'reboot', text: '@reboot' });
});

void test('timezone frame: UTC by default, local for utc: false, the zone when set (utc ignored)', async () => {
  const jobs = await loadJobs({
    'jobs.yaml': [
      'jobs:',
      '  - name: utc',
      '    command: x',
      '    schedule: "0 3 * * *"',
      '  - name: local',
      '    command: x',
      '    schedule: "0 3 * * *"',
      '    utc: false',
      '  - name: zoned',
      '    command: x',
      '    schedule: "0 3 * * *"',
      '    utc: false',
      '    timezone: Europe/Berlin',
      '',
    ].join('\n'),
  });
  assert.deepEqual(
    jobs.map((job) => job.timezone),
    ['UTC', null, 'Europe/Berlin'],
  );
  const zones = jobs.map((job) =>
    job.schedule.kind === 'cron' ? job.schedule.schedule.timezone : '',
  );
  assert.deepEqual(zones, ['UTC', localTimezone(), 'Europe/Berlin']);
});

void test('environment precedence: env_file < defaults.environment < job environment', async () => {
  const { config } = await loadTree({
    'jobs.yaml': [
      'defaults:',
      '  env_file: vars.env',
      '  environment:',
      '    - key: FROM_DEFAULTS',
      '      value: defaults',
      '    - key: SHARED',
      '      value: defaults',
      'jobs:',
      '  - name: test',
      '    command: x',
      '    schedule: "* * * * *"',
      '    environment:',
      '      - key: SHARED',
      '        value: job',
      '      - key: DUP',
      '        value: first',
      '      - key: DUP',
      '        value: last',
      '',
    ].join('\n'),
    'vars.env':
      '# comment\n\n  FROM_FILE = file value  \nFROM_DEFAULTS=file\nSHARED=file\nEQ=a=b\n',
  });
  const job = config.jobs[0]!;
  assert.deepEqual(job.environment, [
    { key: 'FROM_FILE', value: 'file value' },
    { key: 'FROM_DEFAULTS', value: 'defaults' },
    { key: 'SHARED', value: 'job' },
    { key: 'EQ', value: 'a=b' },
    { key: 'DUP', value: 'last' },
  ]);
  assert.equal(job.hasEnvironment, true);
});

void test('env_file resolves against the working directory, not the config file', async () => {
  const { dir, config } = await loadTree(
    {
      'etc/jobs.yaml': singleJob('env_file: vars.env'),
      'vars.env': 'WHERE=cwd\n',
      'etc/vars.env': 'WHERE=config-dir\n',
    },
    'etc/jobs.yaml',
  );
  assert.deepEqual(config.jobs[0]?.environment, [{ key: 'WHERE', value: 'cwd' }]);
  assert.ok(config.sourceFiles.includes(path.join(dir, 'vars.env')));
});

void test('an empty env_file still loads (and defines no variables)', async () => {
  const { config } = await loadTree({
    'jobs.yaml': singleJob('env_file: empty.env'),
    'empty.env': '',
  });
  assert.equal(config.jobs[0]?.hasEnvironment, false);
});

const PASSWD =
  'root:x:0:0:root:/root:/bin/bash\n# comment\nalice:x:1001:1001::/home/alice:/bin/sh\nbob:x:1002:100::/home/bob:/bin/sh\n';
const GROUP = 'root:x:0:\nalice:x:1001:\nusers:x:100:bob\nstaff:x:50:\n';

void test('user by name resolves uid, primary gid and login name; group overrides the gid', async () => {
  const dir = writeTree({ passwd: PASSWD, group: GROUP });
  const { config } = await loadTree(
    {
      'jobs.yaml': [
        'jobs:',
        '  - name: by-name',
        '    command: x',
        '    schedule: "@daily"',
        '    user: alice',
        '  - name: numeric-known',
        '    command: x',
        '    schedule: "@daily"',
        '    user: "1002"',
        '  - name: numeric-unknown',
        '    command: x',
        '    schedule: "@daily"',
        '    user: 4242',
        '  - name: with-group',
        '    command: x',
        '    schedule: "@daily"',
        '    user: bob',
        '    group: staff',
        '  - name: group-only',
        '    command: x',
        '    schedule: "@daily"',
        '    group: 77',
        '',
      ].join('\n'),
    },
    'jobs.yaml',
    { euid: 0, passwdPath: path.join(dir, 'passwd'), groupPath: path.join(dir, 'group') },
  );
  const ids = config.jobs.map(({ name, user, group, uid, gid, userName }) => ({
    name,
    user,
    group,
    uid,
    gid,
    userName,
  }));
  assert.deepEqual(ids, [
    { name: 'by-name', user: 'alice', group: null, uid: 1001, gid: 1001, userName: 'alice' },
    { name: 'numeric-known', user: 1002, group: null, uid: 1002, gid: 100, userName: 'bob' },
    // Not in passwd and no group: the nogroup gid, never the daemon's own (root) gid.
    { name: 'numeric-unknown', user: 4242, group: null, uid: 4242, gid: 65534, userName: null },
    { name: 'with-group', user: 'bob', group: 'staff', uid: 1002, gid: 50, userName: 'bob' },
    { name: 'group-only', user: null, group: 77, uid: null, gid: 77, userName: null },
  ]);
});

void test('report blocks get their defaults and keep secret sources unresolved', async () => {
  const job = await loadOneJob(
    singleJob(
      [
        'onFailure:',
        '  report:',
        '    mail:',
        '      from: cron@example.com',
        '      to: ops@example.com',
        '      smtpHost: smtp.example.com',
        '      password:',
        '        fromEnvVar: SMTP_PASSWORD',
        '    sentry:',
        '      dsn:',
        '        value: https://key@sentry.example.com/1',
        '      extra:',
        '        team: infra',
        '        tier: 2',
        '        paging: yes',
        '        quoted: "3"',
        '    shell:',
        '      command:',
        '        - notify',
        '        - --failed',
        '    webhook:',
        '      url:',
        '        fromFile: /run/secrets/hook',
        '      headers:',
        '        X-Token: abc',
      ].join('\n'),
    ),
  );
  const report = job.onFailureReport;
  assert.deepEqual(report.mail, {
    from: 'cron@example.com',
    to: 'ops@example.com',
    smtpHost: 'smtp.example.com',
    smtpPort: 25,
    tls: false,
    starttls: false,
    validateCerts: true,
    username: null,
    password: { value: null, fromFile: null, fromEnvVar: 'SMTP_PASSWORD' },
    subject: null,
    body: null,
    html: false,
  });
  assert.deepEqual(report.sentry?.dsn, {
    value: 'https://key@sentry.example.com/1',
    fromFile: null,
    fromEnvVar: null,
  });
  assert.deepEqual(report.sentry?.fingerprint, [
    'yacron2',
    '{{ environment.HOSTNAME }}',
    '{{ name }}',
  ]);
  assert.deepEqual(
    { ...report.sentry?.extra },
    { team: 'infra', tier: 2, paging: true, quoted: '3' },
  );
  assert.equal(report.sentry?.maxStringLength, 8192);
  assert.deepEqual(report.shell, {
    command: { kind: 'argv', argv: ['notify', '--failed'] },
    shell: '/bin/sh',
  });
  assert.equal(report.webhook?.method, 'POST');
  assert.equal(report.webhook?.contentType, 'application/json');
  assert.deepEqual({ ...report.webhook?.headers }, { 'X-Token': 'abc' });
  assert.deepEqual(report.webhook?.url, {
    value: null,
    fromFile: '/run/secrets/hook',
    fromEnvVar: null,
  });
  assert.equal(job.onSuccessReport.mail, null);
});

void test('a job may set only mail.to and inherit from/smtpHost from defaults', async () => {
  const { config } = await loadTree({
    'jobs.yaml': [
      'defaults:',
      '  onFailure:',
      '    report:',
      '      mail:',
      '        from: cron@example.com',
      '        smtpHost: smtp.example.com',
      '        to: default@example.com',
      'jobs:',
      '  - name: test',
      '    command: x',
      '    schedule: "* * * * *"',
      '    onFailure:',
      '      report:',
      '        mail:',
      '          to: team@example.com',
      '',
    ].join('\n'),
  });
  const mail = config.jobs[0]?.onFailureReport.mail;
  assert.equal(mail?.from, 'cron@example.com');
  assert.equal(mail?.smtpHost, 'smtp.example.com');
  assert.equal(mail?.to, 'team@example.com');
});

void test('an empty block in a job keeps the defaults block (onFailure: left empty)', async () => {
  const { config } = await loadTree({
    'jobs.yaml':
      'defaults:\n  onFailure:\n    retry:\n      maximumRetries: 3\n      initialDelay: 1\n      maximumDelay: 10\n      backoffMultiplier: 2\njobs:\n  - name: test\n    command: x\n    schedule: "* * * * *"\n    onFailure:\n',
  });
  assert.equal(config.jobs[0]?.retry.maximumRetries, 3);
});

void test('monitorResources: a bool switches it, a map turns it on unless enabled: false', async () => {
  const on = await loadOneJob(singleJob('monitorResources: yes'));
  assert.deepEqual(on.monitorResources, { enabled: true, intervalMs: 1000, history: 240 });
  const map = await loadOneJob(singleJob('monitorResources:\n  history: 10'));
  assert.deepEqual(map.monitorResources, { enabled: true, intervalMs: 1000, history: 10 });
  const off = await loadOneJob(singleJob('monitorResources:\n  enabled: no\n  interval: 5'));
  assert.deepEqual(off.monitorResources, { enabled: false, intervalMs: 5000, history: 240 });
});

void test('stateAllowedScopes is a list of strings', async () => {
  const job = await loadOneJob(singleJob('stateAllowedScopes:\n  - team/a\n  - team/b'));
  assert.deepEqual(job.stateAllowedScopes, ['team/a', 'team/b']);
});

void test('the logging section is returned as written (frozen), version typed as int', async () => {
  const { config } = await loadTree({
    'jobs.yaml':
      'logging:\n  version: 1\n  disable_existing_loggers: no\n  root:\n    level: DEBUG\n    handlers:\n      - console\n',
  });
  assert.deepEqual(JSON.parse(JSON.stringify(config.logging)), {
    version: 1,
    disable_existing_loggers: false,
    root: { level: 'DEBUG', handlers: ['console'] },
  });
  assert.ok(Object.isFrozen(config.logging));
});

void test('configPath is absolute and sourceFiles lists every file read', async () => {
  const { dir, config } = await loadTree({
    'jobs.yaml': 'include:\n  - _common.yaml\n' + singleJob('env_file: vars.env'),
    '_common.yaml': '',
    'vars.env': 'A=1\n',
  });
  assert.equal(config.configPath, path.join(dir, 'jobs.yaml'));
  assert.deepEqual(config.sourceFiles, [
    path.join(dir, 'jobs.yaml'),
    path.join(dir, '_common.yaml'),
    path.join(dir, 'vars.env'),
  ]);
});

void test('an absolute config path works from any working directory', async () => {
  const { dir } = await loadTree({ 'jobs.yaml': singleJob('') });
  const { config } = await loadTree({}, path.join(dir, 'jobs.yaml'));
  assert.equal(config.jobs.length, 1);
  assert.equal(config.jobs[0]?.source.file, path.join(dir, 'jobs.yaml'));
});

void test('the Windows default shell is empty', async () => {
  const job = await loadOneJob(singleJob(''), { platform: 'win32' });
  assert.equal(job.shell, '');
});

void test('a report shell command list from defaults and the job concatenate, as in the reference', async () => {
  const { config } = await loadTree({
    'jobs.yaml': [
      'defaults:',
      '  onFailure:',
      '    report:',
      '      shell:',
      '        command:',
      '          - logger',
      '          - -t',
      singleJob('onFailure:\n  report:\n    shell:\n      command:\n        - myjob'),
    ].join('\n'),
  });
  assert.deepEqual(config.jobs[0]?.onFailureReport.shell?.command, {
    kind: 'argv',
    argv: ['logger', '-t', 'myjob'],
  });
});

const CLUSTER = 'cluster:\n  backend: filesystem\n  filesystem:\n    path: /mnt/shared\n';

const STATE = 'state:\n  path: ./state\n';

void test('cluster and dags sections load; neither counts in the job-set id', async () => {
  const sections = `${CLUSTER}${STATE}dags:\n  - name: nightly\n    tasks:\n      - id: t\n        command: echo t\n`;
  const plain = await loadTree({ 'jobs.yaml': singleJob('') });
  const withState = await loadTree({ 'jobs.yaml': `${singleJob('')}${STATE}` });
  const { config } = await loadTree({ 'jobs.yaml': `${singleJob('')}${sections}` });
  assert.equal(config.jobSetId, plain.config.jobSetId);
  assert.equal(config.jobSetId, withState.config.jobSetId);
  assert.equal(config.jobs.length, 1);
  assert.equal(config.cluster?.backend, 'filesystem');
  assert.deepEqual(
    config.dags?.map((dag) => [dag.name, dag.tasks.map((task) => task.templateName)]),
    [['nightly', ['nightly.t']]],
  );
  // Still one cluster section per configuration, and still checked.
  assert.match(
    await expectConfigError({ 'a.yaml': CLUSTER, 'b.yaml': CLUSTER }, '.'),
    /Multiple 'cluster' configurations found/,
  );
  assert.equal(
    await expectConfigError({ 'jobs.yaml': 'cluster:\n  x: 1\n' }, 'jobs.yaml'),
    "Cannot load jobs.yaml at cluster.x (line 2): unknown key 'x'",
  );
});

void test('jobs with the same expression and zone share one frozen schedule wrapper', async () => {
  const jobs = await loadJobs(
    {
      'jobs.yaml': [
        'jobs:',
        ...['a', 'b', 'c', 'd'].flatMap((name) => [
          `  - name: ${name}`,
          '    command: echo hi',
          `    schedule: "${name === 'd' ? '*/5  * * * *' : '*/5 * * * *'}"`,
          ...(name === 'c' ? ['    timezone: Europe/Berlin'] : []),
        ]),
      ].join('\n'),
    },
    'jobs.yaml',
  );
  const [a, b, c, d] = jobs;
  assert.ok(a !== undefined && b !== undefined && c !== undefined && d !== undefined);
  assert.equal(a.schedule, b.schedule);
  assert.equal(a.schedule, d.schedule, 'whitespace is collapsed before the cache is asked');
  assert.ok(Object.isFrozen(a.schedule));
  assert.notEqual(a.schedule, c.schedule, 'another zone is another schedule');
  assert.equal(c.schedule.text, '*/5 * * * *');
  assert.equal(c.timezone, 'Europe/Berlin');
});
