// The in-memory lease client keeps the contract the real stores' clients keep.
import { test } from 'node:test';
import { FakeClock } from '../../common/index.js';
import { checkLeaseClientContract } from '../lease-client.contract.js';
import { MemoryLeaseClient, MemoryLeaseStore } from './memory.js';

void test('MemoryLeaseClient keeps the lease client contract', async () => {
  const clock = new FakeClock();
  const store = new MemoryLeaseStore(clock);
  await checkLeaseClientContract({
    clock,
    make: (identity) => Promise.resolve(new MemoryLeaseClient(store, { identity, ttlMs: 9000 })),
  });
});
