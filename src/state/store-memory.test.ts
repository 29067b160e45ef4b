import { MemoryStateStore } from './memory-store.js';
import { storeContract } from './store.contract.js';

storeContract('MemoryStateStore', (clock) =>
  Promise.resolve({ store: new MemoryStateStore({ clock }) }),
);
