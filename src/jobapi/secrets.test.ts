import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { JobSecret } from '../config/index.js';
import { withFixture } from './job-api-fixture.test.js';

const SECRET_VALUES = ['s3cr3t-from-value', 's3cr3t-from-env', 's3cr3t-from-file'];

function secret(name: string, source: Partial<JobSecret['source']>): JobSecret {
  return { name, source: { value: null, fromFile: null, fromEnvVar: null, ...source } };
}

void describe('job API /v1/secret (run-scoped secrets)', () => {
  void test('each source is resolved at launch and served to that run; list gives sorted names', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-jobapi-secrets-'));
    try {
      const file = path.join(dir, 'token');
      await writeFile(file, `  ${SECRET_VALUES[2]}\n`);
      await withFixture(
        'memory',
        async ({ startRun }) => {
          const run = startRun({
            secrets: [
              secret('B_ENV', { fromEnvVar: 'REPORT_TOKEN' }),
              secret('A_VALUE', { value: SECRET_VALUES[0]! }),
              secret('C_FILE', { fromFile: file }),
            ],
          });
          assert.deepEqual((await run.get('/v1/secret/get', { name: 'A_VALUE' })).json(), {
            value: SECRET_VALUES[0],
          });
          assert.deepEqual((await run.get('/v1/secret/get', { name: 'B_ENV' })).json(), {
            value: SECRET_VALUES[1],
          });
          assert.deepEqual((await run.get('/v1/secret/get', { name: 'C_FILE' })).json(), {
            value: SECRET_VALUES[2],
          });
          assert.deepEqual((await run.get('/v1/secret/list')).json(), {
            names: ['A_VALUE', 'B_ENV', 'C_FILE'],
          });
        },
        { env: { REPORT_TOKEN: SECRET_VALUES[1] } },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void test('a file secret is read fresh at each launch', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-jobapi-secrets-'));
    try {
      const file = path.join(dir, 'token');
      await withFixture('memory', async ({ startRun }) => {
        const job = { secrets: [secret('T', { fromFile: file })] };
        await writeFile(file, 'one');
        const first = startRun(job);
        assert.equal((await first.get('/v1/secret/get', { name: 'T' })).json().value, 'one');
        await writeFile(file, 'two');
        const second = startRun(job);
        assert.equal((await second.get('/v1/secret/get', { name: 'T' })).json().value, 'two');
        assert.equal((await first.get('/v1/secret/get', { name: 'T' })).json().value, 'one');
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void test('a secret is served only to its own run', () =>
    withFixture('memory', async ({ startRun }) => {
      const owner = startRun({ name: 'owner', secrets: [secret('API', { value: 'owned' })] });
      const other = startRun({ name: 'other' });
      const sameJob = startRun({ name: 'owner', secrets: [] });
      assert.equal((await owner.get('/v1/secret/get', { name: 'API' })).status, 200);
      assert.equal((await other.get('/v1/secret/get', { name: 'API' })).status, 404);
      assert.equal((await sameJob.get('/v1/secret/get', { name: 'API' })).status, 404);
      assert.deepEqual((await other.get('/v1/secret/list')).json(), { names: [] });
    }));

  void test('an unresolvable secret is skipped: get is 404, list omits it, the warning has no value', () =>
    withFixture('memory', async ({ startRun, logger }) => {
      const run = startRun({
        secrets: [
          secret('UNSET', { fromEnvVar: 'NOT_SET_ANYWHERE' }),
          secret('MISSING_FILE', { fromFile: '/nonexistent/yacron2/secret' }),
          secret('OK', { value: 'fine' }),
        ],
      });
      const missing = await run.get('/v1/secret/get', { name: 'UNSET' });
      assert.equal(missing.status, 404);
      assert.equal(missing.text, '');
      assert.deepEqual((await run.get('/v1/secret/list')).json(), { names: ['OK'] });
      const warnings = logger.at('warn').map((line) => line.message);
      assert.equal(warnings.length, 2);
      assert.ok(
        warnings.some(
          (line) => line.includes("secret 'UNSET'") && line.includes('NOT_SET_ANYWHERE'),
        ),
      );
      assert.ok(warnings.some((line) => line.includes("secret 'MISSING_FILE'")));
    }));

  void test('secrets are dropped when the run ends', () =>
    withFixture('memory', async ({ startRun, api }) => {
      const run = startRun({ secrets: [secret('API', { value: 'v' })] });
      assert.equal((await run.get('/v1/secret/get', { name: 'API' })).status, 200);
      api.runEnded(run.runId);
      assert.equal((await run.get('/v1/secret/get', { name: 'API' })).status, 401);
    }));

  void test('secret values never reach the log, the store or another response', () =>
    withFixture(
      'fs',
      async ({ startRun, logger, dir, api }) => {
        const run = startRun({
          secrets: [
            secret('A', { value: SECRET_VALUES[0]! }),
            secret('B', { fromEnvVar: 'REPORT_TOKEN' }),
          ],
        });
        await run.get('/v1/secret/get', { name: 'A' });
        await run.get('/v1/secret/get', { name: 'B' });
        const others = [
          await run.get('/v1/secret/list'),
          await run.get('/v1/run'),
          await run.post('/v1/kv/set', { key: 'k', value: 1 }),
          await run.get('/v1/kv/list'),
        ];
        api.runEnded(run.runId);
        await api.close();
        const logged = JSON.stringify(logger.lines);
        // Every byte the FsStateStore wrote (a KV document among them).
        const files = await readdir(dir!, { recursive: true, withFileTypes: true });
        const stored = (
          await Promise.all(
            files
              .filter((entry) => entry.isFile())
              .map((entry) => readFile(path.join(entry.parentPath, entry.name), 'latin1')),
          )
        ).join('\n');
        assert.match(stored, /"key":"k"/);
        for (const value of SECRET_VALUES.slice(0, 2)) {
          assert.ok(!logged.includes(value), 'not in the log');
          assert.ok(!stored.includes(value), 'not in the store');
          assert.ok(
            others.every((reply) => !reply.text.includes(value)),
            'not in other replies',
          );
        }
      },
      { env: { REPORT_TOKEN: SECRET_VALUES[1] } },
    ));
});
