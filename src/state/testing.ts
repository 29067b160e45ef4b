// The state test door: the reference store's golden records, the independent reader of the
// reference's file grammar, the tar writer the admin tests build hostile archives with, and the
// FaultyStateStore that injects store faults (left out of dist/ with the other test-only modules;
// faulty-store.ts itself is built, for the benches).
export {
  extractGoldenStore,
  GOLDEN_DIR,
  readGoldenExpected,
  type GoldenExpected,
  type GoldenRecord,
  type GoldenStore,
} from './test-golden.js';
export {
  field,
  filesUnder,
  keysOf,
  readReferenceJson,
  RECORD_NAME,
  specEncode,
  toValue,
  type Node,
} from './test-reference-reader.js';
export { TarGzWriter, type TarMember, type TarMemberType } from './admin/tar-writer.js';
export { FixtureProcess, within } from './test-processes.js';
export { DelegatingStateStore, type StoreMethod } from './delegating-store.js';
export {
  FaultyStateStore,
  storeFaultError,
  type StoreErrorFault,
  type StoreFault,
  type StoreOpName,
} from './faulty-store.js';
