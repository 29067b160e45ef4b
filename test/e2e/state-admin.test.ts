// E2E: `yacron2 state ...` through the built CLI (docs/cli.md "yacron2 state"): a daemon with a
// state section opens the store and writes its manifest; check prints the inventory; backup →
// restore → migrate preserve every record, document, blob and lease fence; refusals and usage
// errors exit with 1 and 2, every admin message on stdout.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { systemClock } from '../../src/common/index.js';
import { silentLogger } from '../../src/logging/index.js';
import { FsStateStore, type StateStore } from '../../src/state/index.js';
import { TarGzWriter } from '../../src/state/testing.js';
import { runCli, startDaemon, useTempDir, writeConfig } from './harness.js';

function stateConfig(storePath: string, extra = ''): string {
  return `jobs:\n  - name: nightly\n    command: echo hi\n    schedule: "0 3 * * *"\nstate:\n  path: ${storePath}\n${extra}`;
}

function openStore(storePath: string, deploymentId: string | null = null): FsStateStore {
  return new FsStateStore(
    { path: storePath, deploymentId, topology: 'single-node' },
    { clock: systemClock, logger: silentLogger() },
  );
}

interface Snapshot {
  readonly records: Record<string, unknown>;
  readonly docs: Record<string, unknown>;
  readonly blobs: Record<string, string>;
  readonly leases: Record<string, unknown>;
}

/** Everything the store holds, as comparable values. */
async function snapshot(store: StateStore): Promise<Snapshot> {
  const records: Record<string, unknown> = {};
  for (const stream of await store.listStreams()) records[stream] = await store.list(stream);
  const docs: Record<string, unknown> = {};
  // File mtimes (a document's modifiedAtMs, a lease's updatedAtMs) survive an archive only to the
  // second: compare them at that resolution.
  for (const ns of await store.listDocumentNamespaces()) {
    docs[ns] = (await store.listDocuments(ns)).map((doc) => ({
      ...doc,
      modifiedAtMs: Math.floor(doc.modifiedAtMs / 1000),
    }));
  }
  const blobs: Record<string, string> = {};
  for (const blob of await store.listBlobs()) {
    blobs[blob.sha256] = Buffer.from((await store.getBlob(blob.sha256)) ?? []).toString('utf8');
  }
  const leases: Record<string, unknown> = {};
  for (const lease of await store.listLeases()) {
    leases[lease.name] = { ...lease, updatedAtMs: Math.floor(lease.updatedAtMs / 1000) };
  }
  return { records, docs, blobs, leases };
}

async function seed(storePath: string): Promise<Snapshot> {
  const store = openStore(storePath);
  await store.open();
  try {
    await store.append('runs/nightly', { outcome: 'success', exitCode: 0 });
    await store.append('runs/nightly', { outcome: 'failure', exitCode: 3 });
    await store.append('runs/Other Job', { outcome: 'success' });
    await store.updateDocument('kv/nightly', 'cursor', () => ({
      kind: 'write',
      body: { key: 'cursor', updatedAt: 1, value: { n: 12345 } },
      result: null,
    }));
    const sha = await store.putBlob(new TextEncoder().encode('artifact payload'));
    await store.append('artifacts/nightly', { name: 'report', sha256: sha, size: 16 });
    // A lease with fence 3: acquire, release, re-acquire by others.
    for (const holder of ['a', 'b', 'c']) {
      const lease = await store.acquireLease('slots/nightly', holder, 60_000);
      await store.releaseLease('slots/nightly', holder, lease.fence);
    }
    return await snapshot(store);
  } finally {
    await store.close();
  }
}

async function read(storePath: string, deploymentId: string | null = null): Promise<Snapshot> {
  const store = openStore(storePath, deploymentId);
  await store.open();
  try {
    return await snapshot(store);
  } finally {
    await store.close();
  }
}

/** Drop what is expected to differ between two stores: the manifests and the meta stamp. */
function data(snap: Snapshot): Snapshot {
  const records = Object.fromEntries(
    Object.entries(snap.records).filter(
      ([stream]) => stream !== 'meta' && !stream.startsWith('manifests/'),
    ),
  );
  return { ...snap, records };
}

test('a daemon with a state section opens the store and writes its manifest', async (t) => {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  const config = await writeConfig(dir, stateConfig(store));
  const daemon = startDaemon(t, ['-c', config]);
  await daemon.waitForLog(/^State store ready at .*store\/default/);
  assert.equal(await daemon.stop(), 0);
  const snap = await read(store);
  const manifests = Object.keys(snap.records).filter((name) => name.startsWith('manifests/'));
  assert.equal(manifests.length, 1);
  const [record] = snap.records[manifests[0]!] as { data: { jobs: string[] } }[];
  assert.deepEqual(record?.data.jobs, ['nightly']);
  assert.equal(statSync(join(store, 'default', 'records')).mode & 0o777, 0o700);
  // The namespace directory, like the reference's, gets the umask default (docs "File modes").
  const umask = process.umask();
  assert.equal(statSync(join(store, 'default')).mode & 0o777, 0o777 & ~umask);
});

test('check prints the inventory; -c works before state and after the action', async (t) => {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  await seed(store);
  const config = await writeConfig(dir, stateConfig(store));
  for (const args of [
    ['state', 'check', '-c', config],
    ['-c', config, 'state', 'check'],
  ]) {
    const result = await runCli(args);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(result.stderr, '');
    const lines = result.stdout.split('\n');
    assert.equal(lines[0], `state: store at ${join(store, 'default')} is writable`);
    assert.ok(lines.includes('state: backend: filesystem'));
    assert.ok(lines.includes('state: namespace: default'));
    assert.ok(lines.includes('state:   runs: 2 stream(s), 3 record(s)'), result.stdout);
    assert.ok(lines.includes('state:   artifacts: 1 stream(s), 1 record(s)'));
    assert.ok(lines.includes('state: quarantined: 0'));
  }
});

test('backup → restore → migrate preserve every record, document, blob and lease fence', async (t) => {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  const original = await seed(store);
  assert.equal((original.leases['slots/nightly'] as { fence: number }).fence, 3);
  const config = await writeConfig(dir, stateConfig(store));
  const archive = join(dir, 'backup.tar.gz');

  const backup = await runCli(['state', 'backup', '-o', archive, '-c', config]);
  assert.equal(backup.code, 0, backup.stdout);
  assert.match(backup.stdout, /^state: backed up \d+ files .* to .*backup\.tar\.gz\n$/);
  assert.equal(statSync(archive).mode & 0o777, 0o600);

  const restoredPath = join(dir, 'restored');
  const restoredConfig = await writeConfig(dir, stateConfig(restoredPath), 'restored.yaml');
  const restore = await runCli(['-c', restoredConfig, 'state', 'restore', archive]);
  assert.equal(restore.code, 0, restore.stdout);
  assert.deepEqual(data(await read(restoredPath)), data(original));

  const again = await runCli(['state', 'restore', archive, '-c', restoredConfig]);
  assert.equal(again.code, 1);
  assert.match(
    again.stdout,
    /^yacron2 state error: refusing to restore into .*: the store already has data \(use --force to merge\)\n$/,
  );
  const forced = await runCli(['state', 'restore', archive, '--force', '-c', restoredConfig]);
  assert.equal(forced.code, 0, forced.stdout);
  assert.match(forced.stdout, /\(merged\); kept 0 existing lease\(s\) with a newer fence/);

  const migratedPath = join(dir, 'migrated');
  const migrate = await runCli([
    'state',
    'migrate',
    '--dest',
    migratedPath,
    '--dest-deployment-id',
    'moved',
    '-c',
    restoredConfig,
  ]);
  assert.equal(migrate.code, 0, migrate.stdout);
  assert.match(
    migrate.stdout,
    /state: now point state\.path at .*migrated and state\.deploymentId at moved\n$/,
  );
  assert.deepEqual(data(await read(migratedPath, 'moved')), data(original));

  const refused = await runCli([
    'state',
    'migrate',
    '--dest',
    migratedPath,
    '--dest-deployment-id',
    'moved',
    '-c',
    restoredConfig,
  ]);
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /^yacron2 state error: refusing to migrate into .*already has data/);
});

test('a hostile archive is refused with exit 1 and nothing restored', async (t) => {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  const config = await writeConfig(dir, stateConfig(store));
  const archive = join(dir, 'hostile.tar.gz');
  const writer = new TarGzWriter(archive);
  await writer.add({ path: 'records/runs%2Fx/1.json', bytes: Buffer.from('{}') });
  await writer.add({ path: 'records/evil', type: 'SymbolicLink', linkpath: '/etc/passwd' });
  await writer.finish();
  const result = await runCli(['state', 'restore', archive, '-c', config]);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /^yacron2 state error: refusing the archive .*: member 'records\/evil': it is not a plain file \(a symbolic link\)\n$/,
  );
  assert.equal(result.stderr, '');
});

test('gc: deferred on a young store (exit 0), refused when disabled (exit 1)', async (t) => {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  await seed(store);
  const config = await writeConfig(dir, stateConfig(store));
  const deferred = await runCli(['state', 'gc', '--dry-run', '-c', config]);
  assert.equal(deferred.code, 0, deferred.stdout);
  assert.equal(deferred.stdout, 'state: gc deferred: no manifest has been recorded yet\n');
  const disabled = await writeConfig(dir, stateConfig(store, '  gcGraceSeconds: 0\n'), 'off.yaml');
  const off = await runCli(['state', 'gc', '-c', disabled]);
  assert.equal(off.code, 1);
  assert.equal(
    off.stdout,
    'yacron2 state error: garbage collection is disabled (state.gcGraceSeconds <= 0)\n',
  );
});

test('migrate-schema counts records of the current scheme and converts nothing', async (t) => {
  const dir = await useTempDir(t);
  const store = join(dir, 'store');
  await seed(store);
  const config = await writeConfig(dir, stateConfig(store));
  const result = await runCli(['state', 'migrate-schema', '--dry-run', '-c', config]);
  assert.equal(result.code, 0, result.stdout);
  assert.match(
    result.stdout,
    /^state: migrate-schema: \d+ current \(v1\), 0 would be converted, 0 unknown, 0 unreadable, 0 failed\n$/,
  );
});

test('state exit codes: no action 2, -c between state and action 2, missing -o 2', async (t) => {
  const dir = await useTempDir(t);
  const config = await writeConfig(dir, stateConfig(join(dir, 'store')));
  const none = await runCli(['state']);
  assert.equal(none.code, 2);
  assert.equal(none.stdout, 'yacron2 state: no action given (see `yacron2 state --help`)\n');
  assert.equal((await runCli(['state', '-c', config, 'check'])).code, 2);
  assert.equal((await runCli(['state', 'backup', '-c', config])).code, 2);
  assert.equal((await runCli(['state', 'frobnicate', '-c', config])).code, 2);
  assert.equal((await runCli(['state', '--help'])).code, 0);
});

test('state failures exit 1 on stdout: no state section, bad config, store missing', async (t) => {
  const dir = await useTempDir(t);
  const stateless = await writeConfig(dir, 'jobs:\n', 'stateless.yaml');
  const noSection = await runCli(['state', 'check', '-c', stateless]);
  assert.equal(noSection.code, 1);
  assert.match(
    noSection.stdout,
    /^yacron2 state error: the configuration at .* has no 'state' section\n$/,
  );
  assert.equal(noSection.stderr, '');

  const broken = await writeConfig(dir, 'state:\n  path: s\n  gcGraceSeconds: 60\n', 'broken.yaml');
  const bad = await runCli(['state', 'check', '-c', broken]);
  assert.equal(bad.code, 1);
  assert.match(
    bad.stdout,
    /^yacron2 state error: Cannot load .*broken\.yaml at state\.gcGraceSeconds \(line 3\): /,
  );

  const missingStore = join(dir, 'never-created');
  const config = await writeConfig(dir, stateConfig(missingStore));
  const backup = await runCli(['state', 'backup', '-o', join(dir, 'b.tar.gz'), '-c', config]);
  assert.equal(backup.code, 1);
  assert.equal(
    backup.stdout,
    `state: nothing to back up: ${join(missingStore, 'default')} does not exist\n`,
  );
  const missingDefault = await runCli(['state', 'check'], { cwd: dir });
  assert.equal(missingDefault.code, 1, 'the default-path special case does not apply');
  assert.match(missingDefault.stdout, /^yacron2 state error: Cannot load \/etc\/yacron2\.d/);
});
