// The cluster test door: a throwaway CA and per-node certificates for TLS tests (left out of
// dist/).
export { makeTestCa, type NodeCert, type TestCa } from './test-tls-fixture.js';
export { gossipConfig } from './cluster-fixture.test.js';
