// Every malformed config gives one clear YC_ERR_CONFIG_INVALID naming the file, the field path
// and the line — never a stack trace, never a raw exception.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  expectConfigError,
  expectConfigErrorIn,
  singleJob,
  writeTree,
} from './config-fixture.test.js';

async function errorFor(yamlText: string): Promise<string> {
  return expectConfigError({ 'jobs.yaml': yamlText });
}

// --- YAML dialect -------------------------------------------------------------------------

void test('invalid YAML names the file, the line and the innermost field', async () => {
  assert.equal(
    await errorFor('jobs:\n  - name: a\n   command: x\n'),
    'Cannot load jobs.yaml at jobs[0].name (line 3): invalid YAML: Sequence item without - indicator',
  );
});

void test('an unclosed quote is invalid YAML', async () => {
  assert.match(
    await errorFor('jobs:\n  - name: "a\n'),
    /^Cannot load jobs\.yaml at jobs\[0\]\.name \(line \d\): invalid YAML: Missing closing "quote$/,
  );
});

void test('tab indentation is invalid YAML', async () => {
  assert.equal(
    await errorFor('jobs:\n\t- name: a\n'),
    'Cannot load jobs.yaml at jobs (line 2): invalid YAML: Tabs are not allowed as indentation',
  );
});

void test('flow-style mappings are refused', async () => {
  assert.equal(
    await errorFor('jobs:\n  - {name: a, command: b, schedule: "* * * * *"}\n'),
    'Cannot load jobs.yaml at jobs[0] (line 2): flow style ({...}) is not allowed; write the mapping in block style',
  );
});

void test('flow-style lists are refused', async () => {
  assert.equal(
    await errorFor(singleJob('stateAllowedScopes: [a, b]')),
    'Cannot load jobs.yaml at jobs[0].stateAllowedScopes (line 5): flow style ([...]) is not allowed; write the list in block style',
  );
});

void test('an empty flow list is refused too (omit the key instead)', async () => {
  assert.equal(
    await errorFor('jobs: []\n'),
    'Cannot load jobs.yaml at jobs (line 1): flow style ([...]) is not allowed; write the list in block style',
  );
});

void test('anchors are refused', async () => {
  assert.equal(
    await errorFor('defaults: &common\n  shell: /bin/bash\n'),
    'Cannot load jobs.yaml at defaults (line 2): anchors (&common) are not allowed',
  );
});

void test('aliases are refused', async () => {
  assert.equal(
    await errorFor(
      'jobs:\n  - name: a\n    command: &cmd echo\n    schedule: "* * * * *"\n  - name: b\n    command: *cmd\n    schedule: "* * * * *"\n',
    ),
    'Cannot load jobs.yaml at jobs[0].command (line 3): anchors (&cmd) are not allowed\n' +
      'Cannot load jobs.yaml at jobs[1].command (line 6): aliases (*cmd) are not allowed',
  );
});

void test('explicit tags are refused', async () => {
  assert.equal(
    await errorFor(singleJob('saveLimit: !!int 10')),
    'Cannot load jobs.yaml at jobs[0].saveLimit (line 5): explicit tags (tag:yaml.org,2002:int) are not allowed',
  );
});

void test('duplicate keys are refused, naming both lines', async () => {
  assert.equal(
    await errorFor(singleJob('shell: /bin/sh\nshell: /bin/bash')),
    "Cannot load jobs.yaml at jobs[0].shell (line 6): duplicate key 'shell' (first defined on line 5)",
  );
});

void test('several YAML documents in one file are refused', async () => {
  assert.equal(
    await errorFor('jobs:\n---\njobs:\n'),
    'Cannot load jobs.yaml at (document) (line 2): a config file must hold a single YAML document',
  );
});

void test('a top level that is not a mapping is refused', async () => {
  assert.equal(
    await errorFor('- name: a\n'),
    "Cannot load jobs.yaml at (document) (line 1): expected a mapping with 'jobs', 'defaults', 'include'... at the top level, found a list",
  );
});

// --- schema typing ----------------------------------------------------------------------------

void test('a bool field refuses words outside the strictyaml spellings', async () => {
  assert.equal(
    await errorFor(singleJob('captureStdout: maybe')),
    "Cannot load jobs.yaml at jobs[0].captureStdout (line 5): expected a boolean (yes/no, true/false, on/off, y/n, 1/0), found 'maybe'",
  );
});

void test('an int field refuses a decimal', async () => {
  assert.equal(
    await errorFor(singleJob('saveLimit: 10.5')),
    "Cannot load jobs.yaml at jobs[0].saveLimit (line 5): expected an integer, found '10.5'",
  );
});

void test('an int field refuses hex', async () => {
  assert.equal(
    await errorFor(singleJob('maxLineLength: 0x10')),
    "Cannot load jobs.yaml at jobs[0].maxLineLength (line 5): expected an integer, found '0x10'",
  );
});

void test('a float field refuses words', async () => {
  assert.equal(
    await errorFor(singleJob('killTimeout: soon')),
    "Cannot load jobs.yaml at jobs[0].killTimeout (line 5): expected a number, found 'soon'",
  );
});

void test('a mapping field refuses a scalar', async () => {
  assert.equal(
    await errorFor(singleJob('failsWhen: yes')),
    "Cannot load jobs.yaml at jobs[0].failsWhen (line 5): expected a mapping, found 'yes'",
  );
});

void test('a string field refuses a list', async () => {
  assert.equal(
    await errorFor(singleJob('shell:\n  - /bin/sh')),
    'Cannot load jobs.yaml at jobs[0].shell (line 5): expected a string, found a list',
  );
});

void test('enums are case-sensitive', async () => {
  assert.equal(
    await errorFor(singleJob('concurrencyPolicy: forbid')),
    "Cannot load jobs.yaml at jobs[0].concurrencyPolicy (line 5): expected one of Allow, Forbid, Replace, found 'forbid'",
  );
});

void test('unknown job keys are refused with a suggestion', async () => {
  assert.equal(
    await errorFor(singleJob('captureStdOut: true')),
    "Cannot load jobs.yaml at jobs[0].captureStdOut (line 5): unknown key 'captureStdOut' (did you mean 'captureStdout'?)",
  );
});

void test('unknown top-level keys are refused', async () => {
  assert.equal(
    await errorFor('job:\n  - name: a\n'),
    "Cannot load jobs.yaml at job (line 1): unknown key 'job' (did you mean 'jobs'?)",
  );
});

void test('a job without a schedule is refused', async () => {
  assert.equal(
    await errorFor('jobs:\n  - name: a\n    command: echo\n'),
    "Cannot load jobs.yaml at jobs[0] (line 2): missing required key 'schedule'",
  );
});

void test('a job name must not be empty', async () => {
  assert.equal(
    await errorFor('jobs:\n  - name: ""\n    command: x\n    schedule: "@daily"\n'),
    'Cannot load jobs.yaml at jobs[0].name (line 2): a job name must not be empty',
  );
});

void test('jobs must be a list', async () => {
  assert.equal(
    await errorFor('jobs:\n  name: a\n'),
    'Cannot load jobs.yaml at jobs (line 1): expected a list of jobs, found a mapping',
  );
});

void test('defaults may not hold a schedule', async () => {
  assert.equal(
    await errorFor('defaults:\n  schedule: "* * * * *"\n'),
    'Cannot load jobs.yaml at defaults.schedule (line 2): defaults may not contain name, command or schedule',
  );
});

void test('a written failsWhen block needs producesStdout', async () => {
  assert.equal(
    await errorFor(singleJob('failsWhen:\n  always: true')),
    "Cannot load jobs.yaml at jobs[0].failsWhen (line 5): missing required key 'producesStdout'",
  );
});

void test('a written retry block needs all four keys', async () => {
  assert.equal(
    await errorFor(
      singleJob(
        'onFailure:\n  retry:\n    maximumRetries: 3\n    initialDelay: 1\n    maximumDelay: 10',
      ),
    ),
    "Cannot load jobs.yaml at jobs[0].onFailure.retry (line 6): missing required key 'backoffMultiplier'",
  );
});

void test('logging needs a version', async () => {
  assert.equal(
    await errorFor('logging:\n  root:\n    level: INFO\n'),
    "Cannot load jobs.yaml at logging (line 1): missing required key 'version'",
  );
});

// --- schedules and zones ----------------------------------------------------------------------

void test('an out-of-range minute is reported with the schedule parser reason', async () => {
  assert.equal(
    await errorFor(
      'jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n  - name: b\n    command: x\n    schedule: "61 * * * *"\n',
    ),
    "Cannot load jobs.yaml at jobs[1].schedule (line 7): invalid schedule '61 * * * *': minute 61 is out of range 0-59",
  );
});

void test('an unknown nickname is refused', async () => {
  assert.match(
    await errorFor('jobs:\n  - name: a\n    command: x\n    schedule: "@fortnightly"\n'),
    /^Cannot load jobs\.yaml at jobs\[0\]\.schedule \(line 4\): invalid schedule '@fortnightly': unknown nickname/,
  );
});

void test('@midnight is refused in YAML (crontab files only)', async () => {
  assert.match(
    await errorFor('jobs:\n  - name: a\n    command: x\n    schedule: "@midnight"\n'),
    /^Cannot load jobs\.yaml at jobs\[0\]\.schedule \(line 4\): invalid schedule '@midnight': @midnight is only accepted in crontab files/,
  );
});

void test('an object schedule is validated after rendering', async () => {
  assert.match(
    await errorFor('jobs:\n  - name: a\n    command: x\n    schedule:\n      hour: "25"\n'),
    /^Cannot load jobs\.yaml at jobs\[0\]\.schedule \(line 4\): invalid schedule '\* 25 \* \* \*': hour 25/,
  );
});

void test('an unknown timezone is reported at the timezone field', async () => {
  assert.equal(
    await errorFor(singleJob('timezone: Mars/Olympus')),
    'Cannot load jobs.yaml at jobs[0].timezone (line 5): unknown timezone: Mars/Olympus',
  );
});

void test('a bad schedule is reported before a bad timezone', async () => {
  assert.equal(
    await errorFor(
      'jobs:\n  - name: a\n    command: x\n    schedule: "99 * * * *"\n    timezone: Nowhere/Town\n',
    ),
    "Cannot load jobs.yaml at jobs[0].schedule (line 4): invalid schedule '99 * * * *': minute 99 is out of range 0-59",
  );
});

void test('@reboot jobs still need a known timezone', async () => {
  assert.equal(
    await errorFor(
      'jobs:\n  - name: a\n    command: x\n    schedule: "@reboot"\n    timezone: Nowhere/Town\n',
    ),
    'Cannot load jobs.yaml at jobs[0].timezone (line 5): unknown timezone: Nowhere/Town',
  );
});

// --- numeric ranges -----------------------------------------------------------------------------

void test('a negative killTimeout is refused with the job name', async () => {
  assert.equal(
    await errorFor(singleJob('killTimeout: -1')),
    'Cannot load jobs.yaml at jobs[0].killTimeout (line 5): Job test: killTimeout must be a finite number >= 0, found -1',
  );
});

void test('executionTimeout must be positive', async () => {
  assert.equal(
    await errorFor(singleJob('executionTimeout: 0')),
    'Cannot load jobs.yaml at jobs[0].executionTimeout (line 5): Job test: executionTimeout must be a finite number > 0, found 0',
  );
});

void test('executionTimeout: inf is refused (no timer can wait forever)', async () => {
  assert.equal(
    await errorFor(singleJob('executionTimeout: .inf')),
    'Cannot load jobs.yaml at jobs[0].executionTimeout (line 5): Job test: executionTimeout must be a finite number > 0, found Infinity',
  );
});

void test('maximumRetries below -1 is refused at its nested path', async () => {
  assert.equal(
    await errorFor(
      singleJob(
        'onFailure:\n  retry:\n    maximumRetries: -2\n    initialDelay: 1\n    maximumDelay: 10\n    backoffMultiplier: 2',
      ),
    ),
    'Cannot load jobs.yaml at jobs[0].onFailure.retry.maximumRetries (line 7): Job test: onFailure.retry.maximumRetries must be >= -1, found -2',
  );
});

void test('monitorResources.history is capped at 2000', async () => {
  assert.equal(
    await errorFor(singleJob('monitorResources:\n  history: 5000')),
    'Cannot load jobs.yaml at jobs[0].monitorResources.history (line 6): Job test: monitorResources.history must be between 0 and 2000, found 5000',
  );
});

void test('a bad value inherited from defaults is reported where defaults wrote it', async () => {
  assert.equal(
    await errorFor(
      'defaults:\n  saveLimit: -1\njobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n',
    ),
    'Cannot load jobs.yaml at defaults.saveLimit (line 2): Job a: saveLimit must be >= 0, found -1',
  );
});

void test('the first failing check of a job wins (schedule before ranges)', async () => {
  assert.equal(
    await errorFor(
      'jobs:\n  - name: a\n    command: x\n    schedule: "0 0 32 * *"\n    killTimeout: -5\n',
    ),
    "Cannot load jobs.yaml at jobs[0].schedule (line 4): invalid schedule '0 0 32 * *': day of month 32 is out of range 1-31",
  );
});

void test('concurrencyScope cluster with Allow is refused', async () => {
  assert.match(
    await errorFor(singleJob('concurrencyScope: cluster')),
    /^Cannot load jobs\.yaml at jobs\[0\]\.concurrencyScope \(line 5\): Job test: concurrencyScope cluster needs concurrencyPolicy Forbid or Replace, not Allow$/,
  );
});

void test('statsd needs a usable port', async () => {
  assert.equal(
    await errorFor(singleJob('statsd:\n  prefix: p\n  host: localhost\n  port: 70000')),
    'Cannot load jobs.yaml at jobs[0].statsd.port (line 8): Job test: statsd.port must be between 1 and 65535, found 70000',
  );
});

void test('a secret needs at least one non-empty source', async () => {
  assert.equal(
    await errorFor(singleJob('secrets:\n  - name: token\n    value:')),
    "Cannot load jobs.yaml at jobs[0].secrets[0].name (line 6): Job test: secret 'token' needs a non-empty value, fromFile or fromEnvVar",
  );
});

// --- files and includes -------------------------------------------------------------------------

void test('a missing config file is a config error', async () => {
  assert.equal(
    await expectConfigError({}, 'nope.yaml'),
    'Cannot load nope.yaml: cannot read the configuration: no such file or directory',
  );
});

void test('a missing include names the including file and line', async () => {
  assert.equal(
    await expectConfigError({
      'jobs.yaml': 'include:\n  - common.yaml\n  - missing.yaml\n',
      'common.yaml': '',
    }),
    "Cannot load jobs.yaml at include[1] (line 3): cannot read 'missing.yaml': no such file or directory",
  );
});

void test('an unreadable include (a directory, which fails even for root) is a config error', async () => {
  const dir = writeTree({ 'jobs.yaml': 'include:\n  - sub.yaml\n' });
  mkdirSync(path.join(dir, 'sub.yaml'));
  assert.equal(
    await expectConfigErrorIn(dir, 'jobs.yaml'),
    "Cannot load jobs.yaml at include[0] (line 2): cannot read 'sub.yaml': is a directory, not a file",
  );
});

void test('an unreadable file in a config directory is a config error', async () => {
  const dir = writeTree({ 'conf.d/a.yaml': '' });
  mkdirSync(path.join(dir, 'conf.d', 'b.yaml'));
  assert.equal(
    await expectConfigErrorIn(dir, 'conf.d'),
    'Cannot load conf.d/b.yaml: is a directory, not a file',
  );
});

void test('an include cycle is detected and names the file reached again', async () => {
  assert.equal(
    await expectConfigError({
      'jobs.yaml': 'include:\n  - a.yaml\n',
      'a.yaml': 'include:\n  - b.yaml\n',
      'b.yaml': 'include:\n  - a.yaml\n',
    }),
    'Cannot load b.yaml at include[0] (line 2): include cycle detected at a.yaml',
  );
});

void test('a file including itself is a cycle', async () => {
  assert.equal(
    await expectConfigError({ 'jobs.yaml': 'include:\n  - ./jobs.yaml\n' }),
    'Cannot load jobs.yaml at include[0] (line 2): include cycle detected at jobs.yaml',
  );
});

void test('errors inside an included file name that file', async () => {
  assert.equal(
    await expectConfigError({
      'jobs.yaml': 'include:\n  - _common.yaml\n',
      '_common.yaml': 'defaults:\n  shell:\n    - bash\n',
    }),
    'Cannot load _common.yaml at defaults.shell (line 2): expected a string, found a list',
  );
});

void test('duplicate job names are an error naming both places', async () => {
  assert.equal(
    await expectConfigError({
      'jobs.yaml':
        'include:\n  - other.yaml\njobs:\n  - name: backup\n    command: x\n    schedule: "@daily"\n',
      'other.yaml': 'jobs:\n  - name: backup\n    command: y\n    schedule: "@hourly"\n',
    }),
    "Cannot load jobs.yaml at jobs[0].name (line 4): duplicate job name 'backup' (first defined in other.yaml at jobs[0].name (line 2))",
  );
});

void test('two logging sections through includes are refused', async () => {
  assert.equal(
    await expectConfigError({
      'jobs.yaml': 'include:\n  - a.yaml\nlogging:\n  version: 1\n',
      'a.yaml': 'logging:\n  version: 1\n',
    }),
    "Cannot load jobs.yaml at logging (line 3): Multiple 'logging' configurations found: first in a.yaml (line 1), now in jobs.yaml (line 3)",
  );
});

void test('an invalid cluster section reports its own errors first', async () => {
  assert.equal(
    await errorFor('jobs:\ncluster:\n  x: 1\n'),
    "Cannot load jobs.yaml at cluster.x (line 3): unknown key 'x'",
  );
});

// --- job names and file encodings (this project's refusals: docs/deviations.md) -----------------

void test("a job named 'global' is refused: it is the job API's shared scope", async () => {
  assert.equal(
    await errorFor('jobs:\n  - name: global\n    command: echo hi\n    schedule: "@daily"\n'),
    "Cannot load jobs.yaml at jobs[0].name (line 2): a job may not be named 'global': it is the job API's scope shared by every job",
  );
});

void test('a control character in a job name is refused (C0, DEL and C1)', async () => {
  for (const [written, shown, code] of [
    ['"bell\\a"', 'bell\\u0007', '0007'],
    ['"line\\nbreak"', 'line\\u000Abreak', '000A'],
    ['"del\\x7f"', 'del\\u007F', '007F'],
    ['"c1\\x85"', 'c1\\u0085', '0085'],
  ] as const) {
    assert.equal(
      await errorFor(`jobs:\n  - name: ${written}\n    command: echo hi\n    schedule: "@daily"\n`),
      `Cannot load jobs.yaml at jobs[0].name (line 2): job name '${shown}' contains a control character (U+${code})`,
    );
  }
});

void test('a YAML file that is not valid UTF-8 is refused with its line and byte offset', async () => {
  const dir = writeTree({ 'jobs.yaml': '' });
  const text = 'jobs:\n  - name: a\n    command: echo caf';
  writeFileSync(
    path.join(dir, 'jobs.yaml'),
    Buffer.concat([
      Buffer.from(text),
      Buffer.from([0xe9]),
      Buffer.from('\n    schedule: "@daily"\n'),
    ]),
  );
  assert.equal(
    await expectConfigErrorIn(dir, 'jobs.yaml'),
    `Cannot load jobs.yaml (line 3): not valid UTF-8: byte 0xe9 at byte offset ${text.length}`,
  );
});

void test('a crontab (also an included one) that is not valid UTF-8 is refused with its line', async () => {
  const dir = writeTree({ 'jobs.yaml': 'include:\n  - legacy.crontab\n', 'legacy.crontab': '' });
  const text = '# ok\n* * * * * echo ';
  writeFileSync(
    path.join(dir, 'legacy.crontab'),
    Buffer.concat([Buffer.from(text), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]),
  );
  assert.equal(
    await expectConfigErrorIn(dir, 'jobs.yaml'),
    `Cannot load legacy.crontab (line 2): not valid UTF-8: byte 0xc3 at byte offset ${text.length}`,
  );
});

void test('an env_file that is not valid UTF-8 is refused with its line', async () => {
  const dir = writeTree({ 'jobs.yaml': singleJob('env_file: bad.env'), 'bad.env': '' });
  writeFileSync(path.join(dir, 'bad.env'), Buffer.from([0x41, 0x3d, 0x31, 0x0a, 0x42, 0x3d, 0xff]));
  assert.equal(
    await expectConfigErrorIn(dir, 'jobs.yaml'),
    'Cannot load jobs.yaml at jobs[0].env_file (line 5): Job test: Could not load env_file: not valid UTF-8: byte 0xff at byte offset 6 (line 2)',
  );
});

void test('an integer beyond 2^53 is refused as out of range', async () => {
  assert.equal(
    await errorFor(singleJob('saveLimit: 9007199254740993')),
    "Cannot load jobs.yaml at jobs[0].saveLimit (line 5): integer out of range: '9007199254740993' (at most 9007199254740991 in magnitude)",
  );
});

void test('secrets without a state section fail the cross-check', async () => {
  assert.equal(
    await errorFor(singleJob('secrets:\n  - name: token\n    value: abc')),
    "Cannot load jobs.yaml at jobs[0].secrets (line 5): Job test: secrets need a 'state' section with the job API enabled",
  );
});

void test('concurrencyScope cluster without a state section fails the cross-check', async () => {
  assert.equal(
    await errorFor(singleJob('concurrencyScope: cluster\nconcurrencyPolicy: Forbid')),
    "Cannot load jobs.yaml at jobs[0].concurrencyScope (line 5): Job test: concurrencyScope cluster needs a 'state' section",
  );
});

// --- env_file, user and group ---------------------------------------------------------------------

void test('a missing env_file is reported with the OS reason', async () => {
  assert.equal(
    await errorFor(singleJob('env_file: missing.env')),
    'Cannot load jobs.yaml at jobs[0].env_file (line 5): Job test: Could not load env_file: no such file or directory (ENOENT)',
  );
});

void test('an env_file line without = is reported with its file and line', async () => {
  assert.equal(
    await expectConfigError({
      'jobs.yaml': singleJob('env_file: vars.env'),
      'vars.env': '# comment\nGOOD=1\nexport BAD\n',
    }),
    "Cannot load jobs.yaml at jobs[0].env_file (line 5): Job test: Invalid line in env_file: 'export BAD' (vars.env line 3)",
  );
});

void test('an unknown user is refused', async () => {
  assert.equal(
    await errorFor(singleJob('user: no-such-user-here')),
    "Cannot load jobs.yaml at jobs[0].user (line 5): Job test: User not found: 'no-such-user-here'",
  );
});

void test('a user or group id outside 0..4294967294, or not a whole number, is refused at its field', async () => {
  // 2^32 would wrap to uid 0 (root) in a 32-bit uid_t; 2^32-1 is (uid_t)-1, "leave unchanged".
  const cases: readonly [string, string][] = [
    [
      'user: 4294967296',
      'jobs[0].user (line 5): Job test: user id must be a whole number from 0 to 4294967294, got 4294967296',
    ],
    [
      'user: 4294967295',
      'jobs[0].user (line 5): Job test: user id must be a whole number from 0 to 4294967294, got 4294967295',
    ],
    [
      'user: "4294967296"',
      'jobs[0].user (line 5): Job test: user id must be a whole number from 0 to 4294967294, got 4294967296',
    ],
    [
      'user: -1',
      'jobs[0].user (line 5): Job test: user id must be a whole number from 0 to 4294967294, got -1',
    ],
    [
      'user: 1.5',
      'jobs[0].user (line 5): Job test: user id must be a whole number from 0 to 4294967294, got 1.5',
    ],
    [
      'user: 1e3',
      'jobs[0].user (line 5): Job test: user id must be a whole number from 0 to 4294967294, got 1e3',
    ],
    [
      'user: 0\ngroup: 4294967296',
      'jobs[0].group (line 6): Job test: group id must be a whole number from 0 to 4294967294, got 4294967296',
    ],
  ];
  for (const [keys, where] of cases) {
    assert.equal(await errorFor(singleJob(keys)), `Cannot load jobs.yaml at ${where}`, keys);
  }
  assert.equal(
    await expectConfigError({
      'jobs.yaml':
        'defaults:\n  user: 4294967296\njobs:\n  - name: test\n    command: "true"\n    schedule: "* * * * *"\n',
    }),
    'Cannot load jobs.yaml at defaults.user (line 2): Job test: user id must be a whole number from 0 to 4294967294, got 4294967296',
  );
});

void test('an unknown group is refused at the group field', async () => {
  assert.equal(
    await errorFor(singleJob('user: root\ngroup: no-such-group-here')),
    "Cannot load jobs.yaml at jobs[0].group (line 6): Job test: Group not found: 'no-such-group-here'",
  );
});

void test('changing user needs a superuser daemon', async () => {
  assert.equal(
    await expectConfigError({ 'jobs.yaml': singleJob('user: 1000') }, 'jobs.yaml', { euid: 1000 }),
    'Cannot load jobs.yaml at jobs[0].user (line 5): Job test wants to change user or group, but yacron2 is not running as superuser',
  );
});

void test('changing user is refused on Windows', async () => {
  assert.equal(
    await expectConfigError({ 'jobs.yaml': singleJob('group: 0') }, 'jobs.yaml', {
      platform: 'win32',
    }),
    'Cannot load jobs.yaml at jobs[0].group (line 5): Job test: changing user/group is not supported on Windows',
  );
});

// --- crontab files ----------------------------------------------------------------------------------

void test('an unescaped % in a crontab command is refused at its line', async () => {
  assert.equal(
    await expectConfigError({ 'my.crontab': '# nightly\n0 0 * * * date +%F\n' }, 'my.crontab'),
    "Cannot load my.crontab at command (line 2): unescaped '%' in command (write \\% for a literal %; yacron2 does not feed stdin)",
  );
});

void test('a bad crontab schedule is refused at its line', async () => {
  assert.equal(
    await expectConfigError({ crontab: 'PATH=/bin\n0 24 * * * true\n' }, 'crontab'),
    "Cannot load crontab at schedule (line 2): invalid schedule '0 24 * * *': hour 24 is out of range 0-23",
  );
});

void test('a bad CRON_TZ is refused at its line', async () => {
  assert.equal(
    await expectConfigError({ 'x.cron': 'CRON_TZ=Atlantis/Deep\n@daily true\n' }, 'x.cron'),
    'Cannot load x.cron at CRON_TZ (line 1): unknown timezone: Atlantis/Deep',
  );
});

void test('a crontab line that is neither an assignment nor an entry is refused', async () => {
  assert.equal(
    await expectConfigError({ 'x.crontab': '@daily true\n* * * true\n' }, 'x.crontab'),
    "Cannot load x.crontab at entry (line 2): expected 'NAME=value', '@nickname command' or 5 schedule fields followed by a command, found '* * * true'",
  );
});

// --- aggregation ----------------------------------------------------------------------------------

void test('all errors of a file are reported together, one per line', async () => {
  const message = await errorFor(
    'jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n    saveLimit: lots\n  - name: b\n    command: x\n    schedule: "* * * * * * * *"\n',
  );
  assert.deepEqual(message.split('\n'), [
    "Cannot load jobs.yaml at jobs[0].saveLimit (line 5): expected an integer, found 'lots'",
    "Cannot load jobs.yaml at jobs[1].schedule (line 8): invalid schedule '* * * * * * * *': expected 5, 6 or 7 fields, got 8",
  ]);
});

void test('errors of several directory files are joined by ---', async () => {
  const message = await expectConfigError(
    {
      'conf.d/a.yaml': 'jobs:\n  - name: a\n',
      'conf.d/b.yaml': 'jobz:\n',
      'conf.d/c.yaml': 'jobs:\n',
    },
    'conf.d',
  );
  assert.equal(
    message,
    "Cannot load conf.d/a.yaml at jobs[0] (line 2): missing required key 'command'\n" +
      "Cannot load conf.d/a.yaml at jobs[0] (line 2): missing required key 'schedule'\n" +
      '---\n' +
      "Cannot load conf.d/b.yaml at jobz (line 1): unknown key 'jobz' (did you mean 'jobs'?)",
  );
});

void test('a config with very many errors lists the first 50 and counts the rest', async () => {
  const jobs = Array.from(
    { length: 60 },
    (_, index) => `  - name: j${index}\n    command: x\n    schedule: "bad"\n`,
  );
  const lines = (await errorFor(`jobs:\n${jobs.join('')}`)).split('\n');
  assert.equal(lines.length, 51);
  assert.equal(lines[50], '(and 10 more errors)');
});
