// Which lease client a `cluster` section builds (docs/clustering.md "Lease backends"): etcd,
// Kubernetes or filesystem from its resolved block, and the elector options that go with it
// (the release bound: Kubernetes' renewDeadline, otherwise connectTimeout). Each backend's code is
// imported when its `backend:` is first configured (the Kubernetes one brings the YAML parser and
// the state store's HTTP helpers; docs/performance.md "Memory").
// Must not: start anything (the elector starts the client), or import a backend statically.
import type { Clock } from '../common/index.js';
import type { Logger } from '../logging/index.js';
import type {
  ResolvedEtcdCluster,
  ResolvedFilesystemCluster,
  ResolvedKubernetesCluster,
} from '../config/index.js';
import type { LeaseClient } from './lease-client.js';
import type { LeaseElectorOptions } from './lease-elector.js';

export type ResolvedLeaseCluster =
  ResolvedEtcdCluster | ResolvedKubernetesCluster | ResolvedFilesystemCluster;

export interface LeaseClientDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export async function createLeaseClient(
  cluster: ResolvedLeaseCluster,
  deps: LeaseClientDeps,
): Promise<{ client: LeaseClient; options: LeaseElectorOptions }> {
  const connectTimeoutMs = cluster.connectTimeoutMs;
  switch (cluster.backend) {
    case 'etcd': {
      const { EtcdLeaseClient } = await import('./backends/etcd.js');
      return {
        client: new EtcdLeaseClient(
          { ...cluster.etcd, nodeName: cluster.nodeName, connectTimeoutMs },
          deps,
        ),
        options: { nodeName: cluster.nodeName, releaseTimeoutMs: connectTimeoutMs },
      };
    }
    case 'kubernetes': {
      const { KubernetesLeaseClient } = await import('./backends/kubernetes.js');
      return {
        client: new KubernetesLeaseClient({ ...cluster.kubernetes, connectTimeoutMs }, deps),
        options: {
          nodeName: cluster.nodeName,
          releaseTimeoutMs: cluster.kubernetes.renewDeadlineSeconds * 1000,
        },
      };
    }
    case 'filesystem': {
      const { FilesystemLeaseClient } = await import('./backends/filesystem.js');
      return {
        client: new FilesystemLeaseClient(
          { ...cluster.filesystem, nodeName: cluster.nodeName, connectTimeoutMs },
          deps,
        ),
        options: { nodeName: cluster.nodeName, releaseTimeoutMs: connectTimeoutMs },
      };
    }
  }
}
