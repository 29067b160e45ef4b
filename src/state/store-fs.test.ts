import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { FakeClock } from '../common/fake-clock.js';
import { silentLogger } from '../common/logger.js';
import { FsStateStore } from './fs-store.js';
import { storeContract, type MakeStore } from './store.contract.js';
import type { StateTopology } from './types.js';

function fsStoreMaker(topology: StateTopology): MakeStore {
  return async (clock: FakeClock) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-state-contract-'));
    const store = new FsStateStore({ path: dir, topology }, { clock, logger: silentLogger() });
    return { store, dispose: () => rm(dir, { recursive: true, force: true }) };
  };
}

storeContract('FsStateStore', fsStoreMaker('single-node'));
// On a shared mount every lock goes through the helper thread: hold that path to the contract too.
storeContract(
  'FsStateStore (topology shared: flock via the helper thread)',
  fsStoreMaker('shared'),
);
