// The leadership test door: real etcd servers for tests and the fencing soak in bench/ (left out
// of dist/).
export { startEtcd, type EtcdCluster, type EtcdMember } from './backends/test-etcd.js';
export { startApiserver, type FakeApiserver } from './backends/test-apiserver.js';
export { FilesystemLeaseClient } from './backends/filesystem.js';
