// The manifest record we write, read by the independent reader (test-reference-reader.ts): the
// reference's fields `{at, dags, host, jobSetId, jobs, scopes}`, lists sorted by code point, `at`
// Python's isoformat of UTC.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { FsStateStore } from './fs-store.js';
import { buildManifest, writeManifest } from './manifest.js';
import { keysOf, readReferenceJson, specEncode, toValue } from './test-reference-reader.js';
import { recordingLogger } from '../logging/testing.js';

void test('a manifest record has the reference fields, sorted lists and an isoformat `at`', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-manifest-format-'));
  const clock = new FakeClock(Date.UTC(2026, 11, 1, 14, 30, 51, 560));
  const store = new FsStateStore(
    { path: dir, topology: 'single-node' },
    { clock, logger: recordingLogger() },
  );
  await store.open();
  try {
    const manifest = buildManifest({
      host: 'vm',
      jobSetId: `v1:${'a'.repeat(64)}`,
      jobs: [
        { name: 'writer', stateAllowedScopes: [] },
        { name: 'Report.Daily', stateAllowedScopes: ['writer'] },
        { name: 'ünicode', stateAllowedScopes: [] },
      ],
    });
    await writeManifest(store, manifest, clock.now());
    const streamDir = path.join(dir, 'default', 'records', specEncode('manifests/vm'));
    const [name] = await readdir(streamDir);
    const envelope = readReferenceJson(await readFile(path.join(streamDir, name!), 'utf8'));
    assert.deepEqual(keysOf(envelope), ['data', 'schemaVersion']);
    assert.deepEqual(toValue(envelope), {
      data: {
        at: '2026-12-01T14:30:51.560000+00:00',
        dags: [],
        host: 'vm',
        jobSetId: `v1:${'a'.repeat(64)}`,
        jobs: ['Report.Daily', 'writer', 'ünicode'],
        scopes: ['global', 'writer'],
      },
      schemaVersion: 'v1',
    });
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
