// The job API over the store the Python reference wrote (test/golden/store-reference/): a run
// of the `probe` job (stateAllowedScopes: writer) gets the answers the reference gave its own
// probe (expected.json `probe`): KV values, the cursor, claims in force, the artifact bytes,
// and the next fence of the released lock.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { FsStateStore } from '../state/index.js';
import { extractGoldenStore, readGoldenExpected } from '../state/testing.js';
import { T0, withFixture } from './job-api-fixture.test.js';

interface ProbeAnswer {
  readonly rc: number;
  readonly stdout: string;
  readonly json?: unknown;
}

void test('a job reads the reference store through the job API as the reference answered its probe', async () => {
  const golden = await extractGoldenStore();
  const probe = ((await readGoldenExpected()) as unknown as { probe: Record<string, ProbeAnswer> })
    .probe;
  const store = new FsStateStore(
    { path: golden.storePath, topology: 'single-node' },
    { clock: new FakeClock(T0), logger: silentLogger() },
  );
  await store.open();
  try {
    await withFixture(
      'fs',
      async ({ startRun }) => {
        const run = startRun({ name: 'probe', stateAllowedScopes: ['writer'] });
        const kv = async (label: string, key: string, scope: string): Promise<void> => {
          const reply = await run.get('/v1/kv/get', { key, scope });
          const want = probe[label]!;
          if (want.rc === 4) {
            assert.equal(reply.status, 404, label);
            return;
          }
          assert.equal(reply.status, 200, label);
          const value: unknown = reply.json().value;
          if (want.json !== undefined) assert.deepEqual(value, want.json, label);
          else assert.equal(value, want.stdout, label);
        };
        await kv('kv:writer/greeting', 'greeting', 'writer');
        await kv('kv:writer/settings', 'settings', 'writer');
        await kv('kv:global/shared-note', 'shared-note', 'global');
        await kv('kv:writer/missing', 'missing', 'writer');

        const cursor = await run.get('/v1/cursor/get', { name: 'offset', scope: 'writer' });
        assert.equal(cursor.json().value, probe['cursor:writer/offset']!.json);

        // `yacron2 idempotent KEY` exits 5 when the claim is in force, 0 when it is won.
        const claim = async (key: string): Promise<boolean> => {
          const reply = await run.post('/v1/idempotency/claim', { key, scope: 'writer' });
          return (reply.json() as { fresh: boolean }).fresh;
        };
        assert.equal(
          await claim('invoice-2026-12-01'),
          probe['idem:writer/invoice-2026-12-01']!.rc === 0,
        );
        assert.equal(await claim('never-claimed'), probe['idem:writer/never-claimed']!.rc === 0);

        const artifact = await run.get('/v1/artifact/get', { name: 'report', scope: 'writer' });
        assert.equal(artifact.status, 200);
        assert.equal(
          createHash('sha256').update(artifact.bytes).digest('hex'),
          probe['art:writer/report']!.stdout,
        );

        const lock = await run.post('/v1/lock/acquire', { name: 'nightly', scope: 'writer' });
        assert.equal(lock.json().fence, probe['lock:writer/nightly']!.json);
      },
      { store },
    );
  } finally {
    await golden.dispose();
  }
});
