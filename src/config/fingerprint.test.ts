// The job-set id and per-job digest contract (docs/configuration.md "Job-set id"): which edits
// keep the id and which change it; redaction; the scheme prefix. The exact bytes are pinned by
// the reference's golden cases (fingerprint-golden.test.ts) and canonical-json.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { computeJobSetId, type LoadConfigOptions, type ResolvedJob } from './index.js';
import { loadTree, singleJob, writeTree, type FileTree } from './config-fixture.test.js';

async function idOf(
  files: FileTree,
  entry = 'jobs.yaml',
  options: LoadConfigOptions = {},
): Promise<string> {
  return (await loadTree(files, entry, options)).config.jobSetId;
}

/** The job-set id of one job `test` with these extra YAML lines. */
async function idWith(lines: string, options: LoadConfigOptions = {}): Promise<string> {
  return idOf({ 'jobs.yaml': singleJob(lines) }, 'jobs.yaml', options);
}

async function jobWith(lines: string): Promise<ResolvedJob> {
  const { config } = await loadTree({ 'jobs.yaml': singleJob(lines) });
  return config.jobs[0]!;
}

/** The canonical identity text of the one job of `yamlText`. */
async function canonicalOf(yamlText: string, files: FileTree = {}): Promise<string> {
  const texts: string[] = [];
  await loadTree({ 'jobs.yaml': yamlText, ...files }, 'jobs.yaml', {
    onJobIdentity: (_name, text) => texts.push(text),
  });
  assert.equal(texts.length, 1);
  return texts[0]!;
}

function job(name: string, extra = ''): string {
  return `  - name: ${name}\n    command: echo ${name}\n    schedule: "*/5 * * * *"\n${extra}`;
}

// --- same id ------------------------------------------------------------------------------------

void test('same id: jobs reordered', async () => {
  assert.equal(
    await idOf({ 'jobs.yaml': `jobs:\n${job('a')}${job('b')}` }),
    await idOf({ 'jobs.yaml': `jobs:\n${job('b')}${job('a')}` }),
  );
});

void test('same id: jobs split across a directory or moved into an include', async () => {
  const single = await idOf({ 'jobs.yaml': `jobs:\n${job('a')}${job('b')}` });
  assert.equal(
    await idOf({ 'd/one.yaml': `jobs:\n${job('a')}`, 'd/two.yaml': `jobs:\n${job('b')}` }, 'd'),
    single,
  );
  assert.equal(
    await idOf({
      'jobs.yaml': `include:\n  - more.yaml\njobs:\n${job('a')}`,
      'more.yaml': `jobs:\n${job('b')}`,
    }),
    single,
  );
});

void test('same id: a setting inline on the job vs hoisted into defaults', async () => {
  assert.equal(
    await idOf({ 'jobs.yaml': `jobs:\n${job('a', '    shell: /bin/bash\n    killTimeout: 5\n')}` }),
    await idOf({
      'jobs.yaml': `defaults:\n  shell: /bin/bash\n  killTimeout: 5\njobs:\n${job('a')}`,
    }),
  );
});

void test('same id: 30 vs 30.0 vs the inherited default', async () => {
  const inherited = await idWith('');
  assert.equal(await idWith('killTimeout: 30'), inherited);
  assert.equal(await idWith('killTimeout: 30.0'), inherited);
  assert.equal(await idWith('killTimeout: 3e1'), inherited);
});

void test('same id: schedule whitespace, and object form vs the equivalent string (5/6/7 fields)', async () => {
  const pairs: [string, string][] = [
    ['"*/5   * * *  *"', '"*/5 * * * *"'],
    ['\n  minute: "0"\n  hour: "3"', '"0 3 * * *"'],
    ['\n  minute: "0"\n  year: "2030"', '"0 * * * * 2030"'],
    ['\n  second: "*/10"\n  minute: "1"', '"*/10 1 * * * * *"'],
  ];
  for (const [left, right] of pairs) {
    const yamlFor = (schedule: string): string =>
      `jobs:\n  - name: s\n    command: x\n    schedule: ${schedule.replaceAll('\n', '\n    ')}\n`;
    assert.equal(
      await idOf({ 'jobs.yaml': yamlFor(left) }),
      await idOf({ 'jobs.yaml': yamlFor(right) }),
      left,
    );
  }
});

void test('same id: utc true vs false when an explicit timezone is set', async () => {
  assert.equal(
    await idWith('timezone: Europe/Berlin\nutc: true'),
    await idWith('timezone: Europe/Berlin\nutc: false'),
  );
});

void test('same id: environment order and values differ, names equal (env_file values too)', async () => {
  const env = (a: string, b: string): string =>
    `environment:\n  - key: ${a.split('=')[0]}\n    value: ${a.split('=')[1]}\n  - key: ${b.split('=')[0]}\n    value: ${b.split('=')[1]}`;
  assert.equal(await idWith(env('A=1', 'B=2')), await idWith(env('B=3', 'A=4')));
  assert.equal(
    await idOf({ 'jobs.yaml': singleJob('env_file: host.env'), 'host.env': 'DB_HOST=alpha\n' }),
    await idOf({ 'jobs.yaml': singleJob('env_file: host.env'), 'host.env': 'DB_HOST=beta\n' }),
  );
});

void test('same id: inline secret values differ (sentry DSN, mail password, webhook URL and headers)', async () => {
  const reports = (secret: string): string =>
    [
      'onFailure:',
      '  report:',
      '    sentry:',
      '      dsn:',
      `        value: https://${secret}@sentry.example.com/1`,
      '    mail:',
      '      from: a@example.com',
      '      to: b@example.com',
      '      password:',
      `        value: ${secret}`,
      '    webhook:',
      '      url:',
      `        value: https://hooks.example.com/${secret}`,
      '      headers:',
      `        Authorization: Bearer ${secret}`,
    ].join('\n');
  assert.equal(await idWith(reports('one')), await idWith(reports('two')));
});

void test('same id: user www-data resolving to different uids on different hosts', async () => {
  const hostA = writeTree({ passwd: 'www-data:x:33:33::/var/www:/usr/sbin/nologin\n' });
  const hostB = writeTree({ passwd: 'www-data:x:1033:1033::/var/www:/usr/sbin/nologin\n' });
  const on = (dir: string): LoadConfigOptions => ({
    euid: 0,
    passwdPath: path.join(dir, 'passwd'),
    groupPath: path.join(dir, 'group'),
  });
  const { config: a } = await loadTree(
    { 'jobs.yaml': singleJob('user: www-data') },
    'jobs.yaml',
    on(hostA),
  );
  const { config: b } = await loadTree(
    { 'jobs.yaml': singleJob('user: www-data') },
    'jobs.yaml',
    on(hostB),
  );
  assert.notEqual(a.jobs[0]?.uid, b.jobs[0]?.uid);
  assert.equal(a.jobSetId, b.jobSetId);
});

void test('same id: only non-identity fields change', async () => {
  const base = await idWith('');
  for (const lines of [
    'monitorResources: yes',
    'onMissed: run-once',
    'startingDeadlineSeconds: 60',
    'catchupJitterSeconds: 5',
    'archiveOutput: yes',
    'redactArchivedSecrets: no',
    'stateAllowedScopes:\n  - team',
    'utc: yes',
  ]) {
    assert.equal(await idWith(lines), base, lines);
  }
  assert.equal(await idOf({ 'jobs.yaml': `logging:\n  version: 1\n${singleJob('')}` }), base);
});

void test('same id: the env_file path changes but the variable names do not', async () => {
  assert.equal(
    await idOf({ 'jobs.yaml': singleJob('env_file: a.env'), 'a.env': 'X=1\n' }),
    await idOf({ 'jobs.yaml': singleJob('env_file: b.env'), 'b.env': 'X=2\n' }),
  );
});

void test('same id: writing a report block that only restates defaults', async () => {
  assert.equal(
    await idWith('onSuccess:\n  report:\n    webhook:\n      method: POST\n      timeout: 10'),
    await idWith(''),
  );
});

// --- different id -------------------------------------------------------------------------------

void test('different id: a job added, removed or renamed', async () => {
  const two = await idOf({ 'jobs.yaml': `jobs:\n${job('a')}${job('b')}` });
  const one = await idOf({ 'jobs.yaml': `jobs:\n${job('a')}` });
  const renamed = await idOf({ 'jobs.yaml': `jobs:\n${job('a')}${job('c')}` });
  assert.equal(new Set([two, one, renamed]).size, 3);
});

void test('different id: every identity field', async () => {
  const base = await idWith('');
  const variants = [
    'shell: /bin/bash',
    'concurrencyPolicy: Forbid',
    'clusterPolicy: EveryNode',
    'captureStdout: yes',
    'captureStderr: no',
    'streamPrefix: ""',
    'saveLimit: 10',
    'maxLineLength: 100',
    'utc: no',
    'timezone: Europe/Berlin',
    'enabled: no',
    'onlyIfLastSucceeded: yes',
    'failsWhen:\n  producesStdout: yes',
    'onFailure:\n  retry:\n    maximumRetries: 1\n    initialDelay: 1\n    maximumDelay: 300\n    backoffMultiplier: 2',
    'onFailure:\n  report:\n    mail:\n      to: ops@example.com',
    'onSuccess:\n  report:\n    mail:\n      subject: "{{ name }} ok"',
    'onPermanentFailure:\n  report:\n    shell:\n      command: notify',
    'environment:\n  - key: EXTRA\n    value: "1"',
    'executionTimeout: 60',
    'killTimeout: 31',
    'statsd:\n  prefix: cron\n  host: localhost\n  port: 8125',
    'user: "0"',
    'group: root',
  ];
  const seen = new Map<string, string>([[base, '(base)']]);
  for (const lines of variants) {
    const id = await idWith(lines, { euid: 0 });
    assert.ok(!seen.has(id), `${lines} collides with ${seen.get(id)}`);
    seen.set(id, lines);
  }
});

void test('different id: command string vs list, and list word splits', async () => {
  const withCommand = (command: string): FileTree => ({
    'jobs.yaml': `jobs:\n  - name: c\n    command:${command}\n    schedule: "@daily"\n`,
  });
  const ids = await Promise.all([
    idOf(withCommand(' echo a b')),
    idOf(withCommand('\n      - echo a b')),
    idOf(withCommand('\n      - echo\n      - a b')),
    idOf(withCommand('\n      - echo\n      - a\n      - b')),
  ]);
  assert.equal(new Set(ids).size, 4);
});

void test('different id: schedule text, and @daily is not 0 0 * * *', async () => {
  const at = (schedule: string): FileTree => ({
    'jobs.yaml': `jobs:\n  - name: s\n    command: x\n    schedule: "${schedule}"\n`,
  });
  const ids = await Promise.all([idOf(at('@daily')), idOf(at('0 0 * * *')), idOf(at('0 1 * * *'))]);
  assert.equal(new Set(ids).size, 3);
});

void test('different id: statsd values change', async () => {
  assert.notEqual(
    await idWith('statsd:\n  prefix: cron\n  host: localhost\n  port: 8125'),
    await idWith('statsd:\n  prefix: cron\n  host: localhost\n  port: 8126'),
  );
});

void test('different id: a secret configured vs not, or switching value/fromFile/fromEnvVar', async () => {
  const dsn = (source: string): string =>
    `onFailure:\n  report:\n    sentry:\n      dsn:\n        ${source}`;
  const ids = await Promise.all([
    idWith(''),
    idWith(dsn('value: https://k@sentry.example.com/1')),
    idWith(dsn('fromFile: /run/secrets/dsn')),
    idWith(dsn('fromEnvVar: SENTRY_DSN')),
    idWith(dsn('fromEnvVar: OTHER_DSN')),
  ]);
  assert.equal(new Set(ids).size, 5);
});

void test('different id: concurrencyScope node -> cluster (present only when not node)', async () => {
  const withScope = (scope: string): Promise<string> =>
    canonicalOf(`${singleJob(`concurrencyPolicy: Forbid\n${scope}`)}state:\n  path: s\n`);
  const implicit = await withScope('');
  assert.equal(await withScope('concurrencyScope: node'), implicit);
  assert.doesNotMatch(implicit, /concurrencyScope/);
  const clustered = await withScope('concurrencyScope: cluster');
  assert.match(clustered, /"concurrencyScope":"cluster"/);
});

void test('different id: the platform default shell differs (POSIX vs Windows)', async () => {
  assert.notEqual(await idWith(''), await idWith('', { platform: 'win32' }));
});

// --- canonical form and hashing -------------------------------------------------------------------

void test('the canonical text lists variable names only, sorted, and redacts secret values', async () => {
  const lines = [
    'environment:',
    '  - key: ZED',
    '    value: secret-z',
    '  - key: ALPHA',
    '    value: secret-a',
    'secrets:',
    '  - name: API',
    '    value: s3cret-api',
    'onFailure:',
    '  report:',
    '    webhook:',
    '      url:',
    '        value: https://hooks.example.com/T0KEN',
    '      headers:',
    '        X-Api-Key: k3y',
  ].join('\n');
  const state = 'state:\n  path: s\n';
  const text = await canonicalOf(`${singleJob(`${lines}\nenv_file: host.env`)}${state}`, {
    'host.env': 'MIDDLE=secret-m\n',
  });
  assert.match(text, /"environment":\["ALPHA","MIDDLE","ZED"\]/);
  for (const secret of ['secret-', 'T0KEN', 'k3y', 's3cret-api', 'host.env'])
    assert.ok(!text.includes(secret), secret);
  assert.ok(text.includes('"headers":{"X-Api-Key":"<redacted>"}'));
  assert.ok(text.includes('"url":{"fromEnvVar":null,"fromFile":null,"value":"<redacted>"}'));
  const { config } = await loadTree({ 'jobs.yaml': `${singleJob(lines)}${state}` });
  assert.equal(
    config.jobs[0]?.onFailureReport.webhook?.url?.value,
    'https://hooks.example.com/T0KEN',
  );
});

void test('the job-set id is v1: + sha256 over the sorted digests; the empty set is well defined', () => {
  const empty = `v1:${createHash('sha256').update('v1\n').digest('hex')}`;
  assert.equal(computeJobSetId([]), empty);
  const a = 'a'.repeat(64);
  const b = 'b'.repeat(64);
  assert.equal(computeJobSetId([b, a]), computeJobSetId([{ digest: a }, { digest: b }]));
  assert.equal(
    computeJobSetId([a, b]),
    `v1:${createHash('sha256').update(`v1\n${a}\n${b}`).digest('hex')}`,
  );
  assert.notEqual(computeJobSetId([a]), empty);
  assert.match(computeJobSetId([a]), /^v1:[0-9a-f]{64}$/);
});

void test('an empty config has the empty-set id', async () => {
  assert.equal(await idOf({ 'jobs.yaml': '' }), computeJobSetId([]));
});

void test('the digest of a known job is pinned (durable records depend on it staying stable)', async () => {
  // The reference's digest of this job: the bytes are the reference's (fingerprint-golden.test.ts).
  const { config } = await loadTree({
    'jobs.yaml': 'jobs:\n  - name: pinned\n    command: echo pinned\n    schedule: "0 3 * * *"\n',
  });
  assert.equal(config.jobs[0]?.digest, PINNED_DIGEST);
});

const PINNED_DIGEST = '4473b394477091c37e5d6b766399f08f11bf117e0b8d7d42ed8f374ad5cd31f2';

void test("an empty smtpHost, username, sentry level or environment is '' in the identity (the reference's reading) and unset at run time", async () => {
  const lines = [
    'onFailure:',
    '  report:',
    '    mail:',
    '      to: ops@example.com',
    '      smtpHost:',
    '      username:',
    '    sentry:',
    '      level:',
    '      environment:',
  ].join('\n');
  const text = await canonicalOf(singleJob(lines));
  assert.ok(text.includes('"smtpHost":"","smtpPort":25'));
  assert.ok(text.includes('"username":"","validate_certs":true'));
  assert.ok(text.includes('"environment":"","fingerprint":'));
  assert.ok(text.includes('"level":"","maxStringLength":8192'));
  const report = (await jobWith(lines)).onFailureReport;
  assert.deepEqual(
    [
      report.mail?.smtpHost,
      report.mail?.username,
      report.sentry?.level,
      report.sentry?.environment,
    ],
    [null, null, null, null],
  );
});

void test('sentry extra values count as the text written; level and extra only when written', async () => {
  const extra = (count: string): string =>
    `onFailure:\n  report:\n    sentry:\n      extra:\n        count: ${count}\n        flag: yes`;
  const text = await canonicalOf(singleJob(extra('3')));
  assert.ok(text.includes('"extra":{"count":"3","flag":"yes"}'));
  assert.equal(await canonicalOf(singleJob(extra('"3"'))), text);
  assert.notEqual(await canonicalOf(singleJob(extra('3_0'))), text);
  assert.doesNotMatch(
    await canonicalOf(singleJob('onFailure:\n  report:\n    sentry:\n      body: x')),
    /"level"|"extra"/,
  );
});
