// `yacron2 state gc` output over a MemoryStateStore: counts, kept, blob sweep, each target and
// its reason; dry runs delete nothing; a disabled GC is refused.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { FakeClock } from '../../common/index.js';
import { buildManifest, writeManifest } from '../manifest.js';
import { MemoryStateStore } from '../memory-store.js';
import type { AdminContext } from './context.js';
import { gcStore } from './gc.js';

const DAY = 86_400_000;

async function setup(gcGraceMs: number | null = 7 * DAY) {
  const clock = new FakeClock(Date.UTC(2026, 4, 1));
  const store = new MemoryStateStore({ clock });
  await store.open();
  const manifest = buildManifest({
    host: 'node-a',
    jobSetId: 'v1:x',
    jobs: [{ name: 'live', stateAllowedScopes: [] }],
  });
  await writeManifest(store, manifest, clock.now());
  await store.append('runs/gone', { n: 1 });
  await store.append('runs/live', { n: 1 });
  await clock.advance(8 * DAY);
  await writeManifest(store, manifest, clock.now());
  const lines: string[] = [];
  const ctx: AdminContext = {
    state: { path: '/s', deploymentId: null, gcGraceMs, topology: 'auto' },
    nsDir: '/s/default',
    cwd: '/',
    clock,
    print: (line) => lines.push(line),
    // The action closes the store it opens; reopen so the test can inspect it afterwards.
    openStore: async () => {
      await store.open();
      return store;
    },
  };
  return { store, ctx, lines };
}

void test('a dry run reports what would go and removes nothing', async () => {
  const { store, ctx, lines } = await setup();
  assert.equal(await gcStore(ctx, { dryRun: true }), true);
  assert.deepEqual(lines, [
    'state: gc would remove 1 (streams 1, documents 0, leases 0, blobs 0), kept 2 (grace 7d)',
    'state: blob sweep: would remove 0 orphaned blob(s)',
    "state: would remove stream runs/gone: job 'gone' is in no manifest of the last 7d and the stream has been idle for 8d",
  ]);
  await store.open();
  assert.ok((await store.listStreams()).includes('runs/gone'));
});

void test('a pass removes, sweeps and lists each removed target', async () => {
  const { store, ctx, lines } = await setup();
  assert.equal(await gcStore(ctx, { dryRun: false }), true);
  assert.equal(
    lines[0],
    'state: gc removed 1 (streams 1, documents 0, leases 0, blobs 0), kept 2 (grace 7d)',
  );
  assert.equal(
    lines[2],
    'state: swept 0 temp file(s), 0 quarantined file(s), 0 orphaned lock file(s)',
  );
  assert.match(lines[3] ?? '', /^state: removed stream runs\/gone: /);
  await store.open();
  assert.ok(!(await store.listStreams()).includes('runs/gone'));
});

void test('gc is refused when disabled', async () => {
  const { ctx } = await setup(null);
  await assert.rejects(gcStore(ctx, { dryRun: false }), /garbage collection is disabled/);
});
