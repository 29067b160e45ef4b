import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../config/index.js';
import { secretSourcePaths } from '../config/testing.js';
import { SECRET_SOURCE_READERS, secretEnvVarNames } from './secret-env-vars.js';

/** The variable the fixture below names for a secret source path (`jobs[].secrets[]` → S_JOBS_SECRETS). */
function variableFor(path: string): string {
  return `S_${path
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .toUpperCase()}`;
}

/** A report block whose three secret sources name the variables of `prefix`'s paths. */
function reports(prefix: string, indent: string): string {
  const lines = ['onFailure', 'onPermanentFailure', 'onSuccess'].map(
    (key) => `${key}:
  report:
    mail:
      from: a@example.invalid
      to: b@example.invalid
      password:
        fromEnvVar: ${variableFor(`${prefix}.${key}.report.mail.password`)}
    sentry:
      dsn:
        fromEnvVar: ${variableFor(`${prefix}.${key}.report.sentry.dsn`)}
    webhook:
      url:
        fromEnvVar: ${variableFor(`${prefix}.${key}.report.webhook.url`)}
`,
  );
  return lines
    .join('')
    .split('\n')
    .map((line) => (line === '' ? line : indent + line))
    .join('\n');
}

/**
 * Every secret source path set, each to its own variable. A `defaults` path is set on `defaults`
 * and reaches job `inherits`, which writes none of its own.
 */
function everySourceConfig(dir: string): string {
  return `web:
  listen:
    - http://127.0.0.1:0
  authToken:
    fromEnvVar: ${variableFor('web.authToken')}
cluster:
  backend: etcd
  etcd:
    endpoints:
      - https://127.0.0.1:2379
    username: root
    password:
      fromEnvVar: ${variableFor('cluster.etcd.password')}
state:
  path: ${join(dir, 'store')}
defaults:
  secrets:
    - name: FROM_DEFAULTS
      fromEnvVar: ${variableFor('defaults.secrets[]')}
${reports('defaults', '  ')}jobs:
  - name: own
    command: "true"
    schedule: "@reboot"
    secrets:
      - name: API
        fromEnvVar: ${variableFor('jobs[].secrets[]')}
      - name: LITERAL
        value: not-an-env-var
${reports('jobs[]', '    ')}  - name: inherits
    command: "true"
    schedule: "@reboot"
dags:
  - name: d
    tasks:
      - id: t
        command: "true"
        secrets:
          - name: TASK
            fromEnvVar: ${variableFor('dags[].tasks[].secrets[]')}
`;
}

/** The schema paths with each `defaults.` path read through the jobs it merges into. */
function pathsTheWalkMustRead(): string[] {
  return [
    ...new Set(secretSourcePaths().map((path) => path.replace(/^defaults\./, 'jobs[].'))),
  ].sort();
}

void test('the walk has a reader for every secret source path of the schema tables', () => {
  const paths = secretSourcePaths();
  // The tables are the source: the walk's keys are compared with what they declare.
  assert.ok(paths.includes('cluster.etcd.password'), paths.join(', '));
  assert.ok(paths.includes('dags[].tasks[].secrets[]'), paths.join(', '));
  assert.deepEqual(Object.keys(SECRET_SOURCE_READERS).sort(), pathsTheWalkMustRead());
});

void test('secretEnvVarNames() collects the variable of every secret source path, and nothing else', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-secret-env-'));
  try {
    const file = join(dir, 'jobs.yaml');
    const text = everySourceConfig(dir);
    await writeFile(file, text);
    const expected = secretSourcePaths().map(variableFor).sort();
    for (const name of expected) assert.ok(text.includes(name), `the fixture sets ${name}`);
    const config = await loadConfig(file, {
      env: { [variableFor('cluster.etcd.password')]: 'etcd-pw' },
    });
    assert.deepEqual([...secretEnvVarNames(config)].sort(), expected);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('secretEnvVarNames(): fromFile and literal sources name no variable', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-secret-env-'));
  try {
    const file = join(dir, 'jobs.yaml');
    await writeFile(join(dir, 'pw'), 'etcd-pw\n');
    await writeFile(
      file,
      `cluster:
  backend: etcd
  etcd:
    endpoints:
      - https://127.0.0.1:2379
    username: root
    password:
      fromFile: ${join(dir, 'pw')}
jobs:
  - name: b
    command: "true"
    schedule: "@reboot"
    onPermanentFailure:
      report:
        webhook:
          url:
            fromFile: ${join(dir, 'hook')}
`,
    );
    const config = await loadConfig(file, { env: {} });
    assert.deepEqual([...secretEnvVarNames(config)], []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
