// Crash safety: a writer (records of random size, CAS documents, leases) is killed with SIGKILL
// at a random point, 200 times. records/, docs/ and leases/ must only ever hold complete files;
// a kill mid-write may leave a temp file in tmp/ and nothing else.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { systemClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { FsStateStore } from './fs-store.js';
import { encodeName } from './name-encoding.js';
import { bundleFixtures, startFixture, within, type FixtureProcess } from './test-processes.js';

const KILLS = 200;
const LANES = 2;
let base: string;
let writerBundle: string;
const current: FixtureProcess[] = [];

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'yacron2-state-crash-'));
  writerBundle = (await bundleFixtures(['state-crash-writer'], path.join(base, 'bundles')))[
    'state-crash-writer'
  ]!;
});
after(async () => {
  for (const child of current) if (child.child.exitCode === null) await child.kill();
  await rm(base, { recursive: true, force: true });
});

function parseEnvelope(text: string, file: string): Record<string, unknown> {
  const envelope = JSON.parse(text) as { schemaVersion: string; data: Record<string, unknown> };
  assert.equal(envelope.schemaVersion, 'v1', file);
  return envelope.data;
}

void test(`a writer SIGKILLed at random points ${KILLS} times never leaves a torn file in place`, async () => {
  const storePath = path.join(base, 'store');
  let kills = 0;
  const lane = async (laneId: number): Promise<void> => {
    for (let round = 0; round < KILLS / LANES; round++) {
      const writer = startFixture(writerBundle, [storePath, `lane${laneId}-${round}`]);
      current[laneId] = writer;
      // After one complete round, so every kill leaves something to check however loaded the
      // machine is (the record count and the document below do not depend on timing).
      await writer.waitForLine((line) => line === 'looped', 20_000);
      await systemClock.sleep(Math.random() * 25); // the random kill point, not a wait for anything
      const exit = await within(writer.kill(), 10_000, 'SIGKILL');
      assert.equal(exit.signal, 'SIGKILL', writer.stderr);
      kills += 1;
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, n) => lane(n)));
  assert.equal(kills, KILLS);

  const root = path.join(storePath, 'default');
  const streamDir = path.join(root, 'records', encodeName('crash/stream'));
  const files = await readdir(streamDir);
  assert.ok(files.length >= KILLS, `only ${files.length} records were written`);
  for (const file of files) {
    assert.match(file, /^\d{13}\.\d{6}-[0-9a-f]{12}-\d{12}\.json$/);
    const data = parseEnvelope(await readFile(path.join(streamDir, file), 'utf8'), file);
    const payload = data.payload as string;
    assert.equal(
      createHash('sha256').update(payload).digest('hex'),
      data.sha256,
      `${file} is torn`,
    );
  }
  const doc = parseEnvelope(
    await readFile(path.join(root, 'docs', 'crash', 'doc.doc'), 'utf8'),
    'doc',
  );
  assert.equal(typeof doc.sha256, 'string');
  const lease = JSON.parse(
    await readFile(path.join(root, 'leases', `${encodeName('crash/lease')}.lease`), 'utf8'),
  ) as { fence: unknown };
  assert.ok(Number.isSafeInteger(lease.fence));
  for (const leftover of await readdir(path.join(root, 'tmp'))) {
    assert.match(leftover, /^(w-.*\.tmp|startup-.*\.probe)$/, 'tmp/ holds only write-temps');
  }

  const store = new FsStateStore(
    { path: storePath, topology: 'single-node' },
    { clock: systemClock, logger: silentLogger() },
  );
  await store.open();
  assert.equal((await store.list('crash/stream')).length, files.length);
  const description = await store.describe();
  assert.equal(description.counts.quarantined, 0);
  assert.equal((await store.acquireLease('crash/lease', 'checker', 1000)).acquired, true);
  const sweep = await store.sweep({ tempOlderThanMs: -1 });
  assert.equal(sweep.tempFiles, description.counts.tempFiles);
  await store.close();
});
