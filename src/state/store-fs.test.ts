import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import { silentLogger } from '../logging/index.js';
import { FsStateStore } from './fs-store.js';
import { encodeName } from './name-encoding.js';
import { storeContract, type MakeStore } from './store.contract.js';
import type { StateTopology } from './types.js';

function fsStoreMaker(topology: StateTopology): MakeStore {
  return async (clock: FakeClock) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-state-contract-'));
    const store = new FsStateStore({ path: dir, topology }, { clock, logger: silentLogger() });
    return {
      store,
      dispose: () => rm(dir, { recursive: true, force: true }),
      plantRecordFile: async (stream, fileName, text) => {
        const streamDir = path.join(store.root, 'records', encodeName(stream));
        await mkdir(streamDir, { recursive: true, mode: 0o700 });
        await writeFile(path.join(streamDir, fileName), text, { mode: 0o600 });
      },
    };
  };
}

storeContract('FsStateStore', fsStoreMaker('single-node'));
// On a shared mount every lock goes through the helper thread: hold that path to the contract too.
storeContract(
  'FsStateStore (topology shared: flock via the helper thread)',
  fsStoreMaker('shared'),
);

void test('two store objects of one process on one directory exclude each other (state + leadership)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-state-two-objects-'));
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const stores = ['single-node', 'shared'].map(
      (topology) =>
        new FsStateStore(
          { path: dir, topology: topology as StateTopology },
          { clock, logger: silentLogger() },
        ),
    );
    for (const store of stores) await store.open();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        stores[n % 2]!.acquireLease('election', `node-${n}`, 30_000),
      ),
    );
    assert.equal(results.filter((result) => result.acquired).length, 1);
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        stores[n % 2]!.updateDocument('counters', 'n', (current) => ({
          kind: 'write',
          body: { value: ((current?.body.value as number | undefined) ?? 0) + 1 },
          result: null,
        })),
      ),
    );
    assert.deepEqual((await stores[1]!.getDocument('counters', 'n'))?.body, { value: 20 });
    for (const store of stores) await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
