// The leadership test door: real etcd servers for tests and the fencing soak in bench/, and the
// StaticLeadership a decision test steers (left out of dist/; static-leadership.ts itself is
// built, for the benches).
export { startEtcd, type EtcdCluster, type EtcdMember } from './backends/test-etcd.js';
export { startApiserver, type FakeApiserver } from './backends/test-apiserver.js';
export { FilesystemLeaseClient } from './backends/filesystem.js';
export {
  StaticLeadership,
  StaticLeadershipSource,
  type StaticLeadershipState,
} from './static-leadership.js';
