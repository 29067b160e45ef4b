import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../config/index.js';
import { secretEnvVarNames } from './secret-env-vars.js';

void test('secretEnvVarNames() collects every fromEnvVar of the configuration, and nothing else', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-secret-env-'));
  try {
    const file = join(dir, 'jobs.yaml');
    await writeFile(
      file,
      `web:
  listen:
    - http://127.0.0.1:0
  authToken:
    fromEnvVar: WEB_TOKEN
state:
  path: ${join(dir, 'store')}
defaults:
  onSuccess:
    report:
      webhook:
        url:
          fromEnvVar: DEFAULT_HOOK
jobs:
  - name: a
    command: "true"
    schedule: "@reboot"
    secrets:
      - name: API
        fromEnvVar: API_TOKEN
      - name: LITERAL
        value: not-an-env-var
    onFailure:
      report:
        mail:
          from: a@example.invalid
          to: b@example.invalid
          password:
            fromEnvVar: MAIL_PASSWORD
        sentry:
          dsn:
            fromEnvVar: SENTRY_DSN
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
    assert.deepEqual([...secretEnvVarNames(config)].sort(), [
      'API_TOKEN',
      'DEFAULT_HOOK',
      'MAIL_PASSWORD',
      'SENTRY_DSN',
      'WEB_TOKEN',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
