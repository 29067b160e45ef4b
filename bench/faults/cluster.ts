// The cluster a fault run drives, per backend, with every link it may break going through a
// TcpProxy it controls: gossip's directed /peer links (ProxiedMesh), and each node's own link to
// its store (an etcd started here, or the in-test Kubernetes apiserver). The filesystem backend
// has no store link to proxy (the lease is a file on a local directory): its "slow store" is a
// SIGSTOP of the node, the narrowest seam there is (bench/README.md "The fault harness").
// Every node shares one state directory (topology shared) as docs/clustering.md "Retries under
// election" and the catch-up gate expect, each under a host name of its own.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestCa } from '../../src/cluster/testing.js';
import {
  startApiserver,
  startEtcd,
  type EtcdCluster,
  type FakeApiserver,
} from '../../src/leadership/testing.js';
import {
  ProxiedMesh,
  TcpProxy,
  witnessPath,
  writeNodeConfig,
} from '../../test/e2e/cluster-harness.js';
import { writeConfig } from '../../test/e2e/harness.js';
import { workloadJobs } from './workload.js';

export const BACKENDS = ['gossip', 'gossip-spread', 'etcd', 'filesystem', 'kubernetes'] as const;
export type Backend = (typeof BACKENDS)[number];

/** Lease TTL (etcd, filesystem) and Kubernetes lease duration, seconds: short, to fail over often. */
export const LEASE_TTL_S = 3;
/** What nodeConfigYaml in the cluster harness sets (a blackholed poll hangs this long). */
export const GOSSIP_CONNECT_TIMEOUT_S = 5;

export interface FaultCluster {
  readonly backend: Backend;
  readonly names: readonly string[];
  readonly witness: string;
  /** Directed gossip links (`from>to`), empty on a lease backend. */
  readonly peerLinks: ReadonlyMap<string, TcpProxy>;
  /** Each node's link to its store (etcd, kubernetes), empty otherwise. */
  readonly storeLinks: ReadonlyMap<string, TcpProxy>;
  /** SIGSTOP / SIGCONT of the store process (etcd only). */
  readonly store: { pause(): void; resume(): void } | null;
  close(): Promise<void>;
}

const TOKEN = 'faults-token';

function stateSection(dir: string): string {
  return `state:\n  path: ${join(dir, 'store')}\n  topology: shared\n`;
}

function leaseYaml(
  name: string,
  jobs: string,
  dir: string,
  block: string,
  backend: string,
): string {
  return (
    `jobs:\n${jobs}${stateSection(dir)}` +
    `web:\n  listen:\n    - http://127.0.0.1:0\n` +
    `cluster:\n  backend: ${backend}\n  nodeName: ${name}\n${block}`
  );
}

/** Write `<name>.yaml` for every node in `dir` and start what the backend needs. */
export async function createCluster(
  backend: Backend,
  dir: string,
  names: readonly string[],
): Promise<FaultCluster> {
  const witness = witnessPath(dir);
  const jobs = workloadJobs(witness);
  if (backend === 'gossip' || backend === 'gossip-spread') {
    const mesh = await ProxiedMesh.create(dir, names, makeTestCa('faults'));
    const distribution = backend === 'gossip' ? 'single-leader' : 'spread';
    for (const name of names) {
      await writeNodeConfig(
        dir,
        name,
        mesh.config(name, { jobs, sections: stateSection(dir), distribution, witness }),
      );
    }
    const peerLinks = new Map<string, TcpProxy>();
    for (const from of names) {
      for (const to of names) if (from !== to) peerLinks.set(`${from}>${to}`, mesh.link(from, to));
    }
    const close = (): Promise<void> => mesh.close();
    return { backend, names, witness, peerLinks, storeLinks: new Map(), store: null, close };
  }
  if (backend === 'filesystem') {
    const block = `  filesystem:\n    path: ${join(dir, 'election')}\n    topology: shared\n    ttl: ${LEASE_TTL_S}\n`;
    for (const name of names) {
      await writeConfig(dir, leaseYaml(name, jobs, dir, block, backend), `${name}.yaml`);
    }
    const none = new Map<string, TcpProxy>();
    const close = (): Promise<void> => Promise.resolve();
    return { backend, names, witness, peerLinks: none, storeLinks: none, store: null, close };
  }
  if (backend === 'etcd') {
    const etcd: EtcdCluster = await startEtcd(1);
    const member = etcd.members[0]!;
    return storeCluster(backend, dir, names, member.clientUrl, {
      block: (url) =>
        `  etcd:\n    endpoints:\n      - ${url}\n` +
        `    electionName: faults/leader\n    ttl: ${LEASE_TTL_S}\n`,
      store: { pause: () => member.pause(), resume: () => member.resume() },
      stop: () => etcd.stop(),
    });
  }
  const api: FakeApiserver = await startApiserver(makeTestCa('faults-api'), TOKEN);
  const template = readFileSync(api.kubeconfig({ namespace: 'default' }), 'utf8');
  return storeCluster(backend, dir, names, api.url, {
    block: (url) => {
      // The same kubeconfig, its server the node's own proxy (the certificate names 127.0.0.1).
      const kubeconfig = api.kubeconfig({ namespace: 'default' });
      writeFileSync(kubeconfig, template.replace(api.url, url));
      return (
        `  kubernetes:\n    kubeconfig: ${kubeconfig}\n    leaseName: faults-leader\n` +
        `    leaseNamespace: default\n    leaseDurationSeconds: ${LEASE_TTL_S + 1}\n` +
        `    renewDeadlineSeconds: 2\n    retryPeriodSeconds: 1\n`
      );
    },
    store: null,
    stop: () => api.close(),
  });
}

/** A lease backend on a store at `storeUrl`, each node reaching it through its own proxy. */
async function storeCluster(
  backend: Backend,
  dir: string,
  names: readonly string[],
  storeUrl: string,
  how: {
    /** The backend's YAML block for a node whose store URL is `url`. */
    block: (url: string) => string;
    store: FaultCluster['store'];
    stop: () => Promise<void>;
  },
): Promise<FaultCluster> {
  const url = new URL(storeUrl);
  const storeLinks = new Map<string, TcpProxy>();
  for (const name of names) {
    const link = await TcpProxy.start(Number(url.port));
    storeLinks.set(name, link);
    const block = how.block(`${url.protocol}//127.0.0.1:${link.port}`);
    const yaml = leaseYaml(name, workloadJobs(witnessPath(dir)), dir, block, backend);
    await writeConfig(dir, yaml, `${name}.yaml`);
  }
  return {
    backend,
    names,
    witness: witnessPath(dir),
    peerLinks: new Map(),
    storeLinks,
    store: how.store,
    close: async () => {
      await Promise.all([...storeLinks.values()].map((link) => link.close()));
      await how.stop();
    },
  };
}
