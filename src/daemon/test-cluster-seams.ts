// The cluster supervisor's seams for the daemon's cluster tests: fixed certificates instead of
// files, and a transport from the test's in-memory network instead of mTLS.
import type { DaemonClusterDeps } from './cluster.js';

type SupervisorSeams = NonNullable<DaemonClusterDeps['supervisorSeams']>;

export function testSupervisorSeams(
  createTransport: NonNullable<SupervisorSeams['createTransport']>,
): SupervisorSeams {
  return {
    loadTls: () =>
      Promise.resolve({ ca: Buffer.from('ca'), cert: Buffer.from('c'), key: Buffer.from('k') }),
    snapshotTls: () => Promise.resolve({ ca: 'ca', cert: 'cert', key: 'key' }),
    createTransport,
  };
}
