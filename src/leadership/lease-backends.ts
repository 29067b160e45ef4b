// Which lease client a `cluster` section builds (docs/clustering.md "Lease backends"): etcd,
// Kubernetes or filesystem from its resolved block, and the elector options that go with it
// (the release bound: Kubernetes' renewDeadline, otherwise connectTimeout).
// Must not: start anything (the elector starts the client).
import type { Clock, Logger } from '../common/index.js';
import type {
  ResolvedEtcdCluster,
  ResolvedFilesystemCluster,
  ResolvedKubernetesCluster,
} from '../config/index.js';
import { EtcdLeaseClient } from './backends/etcd.js';
import { FilesystemLeaseClient } from './backends/filesystem.js';
import { KubernetesLeaseClient } from './backends/kubernetes.js';
import type { LeaseClient } from './lease-client.js';
import type { LeaseElectorOptions } from './lease-elector.js';

export type ResolvedLeaseCluster =
  ResolvedEtcdCluster | ResolvedKubernetesCluster | ResolvedFilesystemCluster;

export interface LeaseClientDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function createLeaseClient(
  cluster: ResolvedLeaseCluster,
  deps: LeaseClientDeps,
): { client: LeaseClient; options: LeaseElectorOptions } {
  const connectTimeoutMs = cluster.connectTimeoutMs;
  switch (cluster.backend) {
    case 'etcd':
      return {
        client: new EtcdLeaseClient(
          { ...cluster.etcd, nodeName: cluster.nodeName, connectTimeoutMs },
          deps,
        ),
        options: { nodeName: cluster.nodeName, releaseTimeoutMs: connectTimeoutMs },
      };
    case 'kubernetes':
      return {
        client: new KubernetesLeaseClient({ ...cluster.kubernetes, connectTimeoutMs }, deps),
        options: {
          nodeName: cluster.nodeName,
          releaseTimeoutMs: cluster.kubernetes.renewDeadlineSeconds * 1000,
        },
      };
    case 'filesystem':
      return {
        client: new FilesystemLeaseClient(
          { ...cluster.filesystem, nodeName: cluster.nodeName, connectTimeoutMs },
          deps,
        ),
        options: { nodeName: cluster.nodeName, releaseTimeoutMs: connectTimeoutMs },
      };
  }
}
