import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecretSource } from '../config/index.js';
import { ReportError } from './report-error.js';
import { resolveSecret } from './secrets.js';

const source = (fields: Partial<SecretSource>): SecretSource => ({
  value: null,
  fromFile: null,
  fromEnvVar: null,
  ...fields,
});

async function withFile<T>(content: string, body: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'yacron2-secret-'));
  try {
    const path = join(dir, 'secret');
    await writeFile(path, content);
    return await body(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void test('no source resolves to null', async () => {
  assert.equal(await resolveSecret(null, {}, 'sentry', 'Sentry DSN'), null);
  assert.equal(await resolveSecret(source({}), {}, 'sentry', 'Sentry DSN'), null);
});

void test('value wins over fromFile, which wins over fromEnvVar', async () => {
  await withFile('  from-file\n', async (path) => {
    const env = { SECRET: 'from-env' };
    const all = source({ value: 'literal', fromFile: path, fromEnvVar: 'SECRET' });
    assert.equal(await resolveSecret(all, env, 'mail', 'mail password'), 'literal');
    const fileAndEnv = source({ value: '', fromFile: path, fromEnvVar: 'SECRET' });
    assert.equal(await resolveSecret(fileAndEnv, env, 'mail', 'mail password'), 'from-file');
    const envOnly = source({ fromFile: '', fromEnvVar: 'SECRET' });
    assert.equal(await resolveSecret(envOnly, env, 'mail', 'mail password'), 'from-env');
  });
});

void test('fromFile strips surrounding whitespace; a blank file is no secret', async () => {
  await withFile('\n\t s3cret value \r\n', async (path) => {
    assert.equal(
      await resolveSecret(source({ fromFile: path }), {}, 'webhook', 'webhook URL'),
      's3cret value',
    );
  });
  await withFile(' \n', async (path) => {
    assert.equal(
      await resolveSecret(source({ fromFile: path }), {}, 'webhook', 'webhook URL'),
      null,
    );
  });
});

void test('fromEnvVar reads the given (daemon) environment at resolve time', async () => {
  const env: NodeJS.ProcessEnv = {};
  const dsn = source({ fromEnvVar: 'SENTRY_DSN' });
  env['SENTRY_DSN'] = 'first';
  assert.equal(await resolveSecret(dsn, env, 'sentry', 'Sentry DSN'), 'first');
  env['SENTRY_DSN'] = 'second';
  assert.equal(await resolveSecret(dsn, env, 'sentry', 'Sentry DSN'), 'second');
});

void test('an unset or empty variable is a ReportError naming the variable', async () => {
  for (const env of [{}, { HOOK_URL: '' }]) {
    await assert.rejects(
      resolveSecret(source({ fromEnvVar: 'HOOK_URL' }), env, 'webhook', 'webhook URL'),
      (error: unknown) =>
        error instanceof ReportError &&
        error.reporter === 'webhook' &&
        error.message === 'Cannot read the webhook URL: environment variable HOOK_URL is not set',
    );
  }
});

void test('an unreadable file is a ReportError naming the file and the errno code', async () => {
  await assert.rejects(
    resolveSecret(source({ fromFile: '/nonexistent/pw' }), {}, 'mail', 'mail password'),
    (error: unknown) =>
      error instanceof ReportError &&
      error.message === 'Cannot read the mail password from /nonexistent/pw: ENOENT',
  );
});
