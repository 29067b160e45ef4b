// The `cluster` section's shape (docs/configuration.md "cluster"): the resolved values every
// backend gets, the schema the walker types the block with, and the typing itself (which keys
// were written at all: an empty store block still counts). Resolution and its rules are in
// cluster-section.ts. Types and pure typing only.
import type { ClusterAddress } from './cluster-address.js';
import type {
  ResolvedEtcdBlock,
  ResolvedFilesystemBlock,
  ResolvedKubernetesBlock,
  TypedEtcdBlock,
  TypedFilesystemBlock,
  TypedKubernetesBlock,
} from './cluster-lease-blocks.js';
import { childPath } from './issues.js';
import { walkSection, type FieldSpec, type Schema, type WalkContext } from './schema.js';
import type { SourceLocation } from './types.js';
import type { RawNode } from './yaml-tree.js';

export type ClusterBackend = 'gossip' | 'kubernetes' | 'etcd' | 'filesystem';
export type ClusterDistributionSetting = 'single-leader' | 'spread';

export interface ClusterTlsPaths {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export interface ClusterCommon {
  readonly nodeName: string;
  readonly connectTimeoutMs: number;
  readonly electLeader: boolean;
  readonly distribution: ClusterDistributionSetting;
  /** WARNING lines for each manager build attempt (and `-v`); never errors. */
  readonly advisories: readonly string[];
  /** Share this node's resources reading with peers (`observability.shareNodeStats`). */
  readonly shareNodeStats: boolean;
  readonly source: SourceLocation;
}

export interface ResolvedGossipCluster extends ClusterCommon {
  readonly backend: 'gossip';
  readonly intervalMs: number;
  readonly driftAfter: number;
  readonly listen: ClusterAddress;
  /** Absolute paths. */
  readonly tls: ClusterTlsPaths;
  /** Normalised: no duplicates, no entry provably this node; config order. */
  readonly peers: readonly string[];
}

interface LeaseCommon extends ClusterCommon {
  /** The election-inert gossip overlay serving /fleet and node stats, when configured. */
  readonly observabilityMesh: ResolvedGossipCluster | null;
}

export interface ResolvedKubernetesCluster extends LeaseCommon {
  readonly backend: 'kubernetes';
  readonly kubernetes: ResolvedKubernetesBlock;
}
export interface ResolvedEtcdCluster extends LeaseCommon {
  readonly backend: 'etcd';
  readonly etcd: ResolvedEtcdBlock;
}
export interface ResolvedFilesystemCluster extends LeaseCommon {
  readonly backend: 'filesystem';
  readonly filesystem: ResolvedFilesystemBlock;
}

export type ResolvedCluster =
  | ResolvedGossipCluster
  | ResolvedKubernetesCluster
  | ResolvedEtcdCluster
  | ResolvedFilesystemCluster;

const str: Schema = { kind: 'str' };
const int: Schema = { kind: 'int' };
const bool: Schema = { kind: 'bool' };
const emptyOrStr: Schema = { kind: 'emptyNone', inner: str };
const opt = (schema: Schema): FieldSpec => ({ schema });
const req = (schema: Schema): FieldSpec => ({ schema, required: true });
const map = (fields: Record<string, FieldSpec>): Schema => ({ kind: 'map', fields });

const GOSSIP_KEYS = {
  listen: opt(str),
  tls: opt(map({ ca: req(str), cert: req(str), key: req(str) })),
  peers: opt({ kind: 'seq', item: map({ host: req(str) }) }),
  nodeName: opt(emptyOrStr),
  interval: opt(int),
  driftAfter: opt(int),
  connectTimeout: opt(int),
};

export const CLUSTER_SCHEMA: Schema = map({
  backend: opt({ kind: 'enum', values: ['gossip', 'kubernetes', 'etcd', 'filesystem'] }),
  electLeader: opt(bool),
  distribution: opt({ kind: 'enum', values: ['single-leader', 'spread'] }),
  ...GOSSIP_KEYS,
  kubernetes: opt(
    map({
      leaseName: opt(str),
      leaseNamespace: opt(emptyOrStr),
      leaseDurationSeconds: opt(int),
      renewDeadlineSeconds: opt(int),
      retryPeriodSeconds: opt(int),
      identity: opt(emptyOrStr),
      kubeconfig: opt(emptyOrStr),
      apiServer: opt(emptyOrStr),
      clientLibrary: opt({ kind: 'enum', values: ['auto', 'http', 'library'] }),
    }),
  ),
  etcd: opt(
    map({
      endpoints: opt({ kind: 'seq', item: str }),
      electionName: opt(str),
      ttl: opt(int),
      username: opt(emptyOrStr),
      password: opt(
        map({ value: opt(emptyOrStr), fromFile: opt(emptyOrStr), fromEnvVar: opt(emptyOrStr) }),
      ),
      tls: opt(map({ ca: opt(emptyOrStr), cert: opt(emptyOrStr), key: opt(emptyOrStr) })),
    }),
  ),
  filesystem: opt(
    map({
      path: opt(str),
      electionName: opt(str),
      ttl: opt({ kind: 'float' }),
      deploymentId: opt(emptyOrStr),
      topology: opt({ kind: 'enum', values: ['auto', 'single-node', 'shared'] }),
    }),
  ),
  observability: opt(map({ shareNodeStats: opt(bool), ...GOSSIP_KEYS })),
});

export interface TypedGossipKeys {
  readonly listen?: string;
  readonly tls?: { readonly ca: string; readonly cert: string; readonly key: string };
  readonly peers?: readonly { readonly host: string }[];
  readonly nodeName?: string | null;
  readonly interval?: number;
  readonly driftAfter?: number;
  readonly connectTimeout?: number;
}

/** The section as typed by CLUSTER_SCHEMA (the LocTable knows where each field was written). */
export interface TypedClusterFields extends TypedGossipKeys {
  readonly backend?: ClusterBackend;
  readonly electLeader?: boolean;
  readonly distribution?: ClusterDistributionSetting;
  readonly kubernetes?: TypedKubernetesBlock;
  readonly etcd?: TypedEtcdBlock;
  readonly filesystem?: TypedFilesystemBlock;
  readonly observability?: TypedGossipKeys & { readonly shareNodeStats?: boolean };
}

/** The typed fields, plus which keys were written at all (an empty block is still a block). */
export interface TypedCluster {
  readonly fields: TypedClusterFields;
  /** Top-level keys as written, empty values included. */
  readonly writtenKeys: readonly string[];
  /** Keys written in `observability` (an empty block: []); undefined when there is no block. */
  readonly observabilityKeys: readonly string[] | undefined;
}

/** Type the block; issues go to `ctx`. undefined when it is invalid. */
export function typeClusterSection(
  node: RawNode,
  sectionPath: string,
  line: number,
  ctx: WalkContext,
): TypedCluster | undefined {
  const value = walkSection(CLUSTER_SCHEMA, 'cluster', node, sectionPath, line, ctx);
  if (value === undefined || node.kind !== 'map') return undefined;
  const observability = node.entries.find((entry) => entry.key === 'observability');
  // An empty block (`kubernetes:`) types to nothing; its key still has a place for messages.
  for (const entry of node.entries) {
    if (ctx.locs.get(value as object, entry.key) === undefined) {
      ctx.locs.set(value as object, entry.key, {
        file: ctx.file,
        path: childPath(sectionPath, entry.key),
        line: entry.line,
      });
    }
  }
  return {
    fields: value as TypedClusterFields,
    writtenKeys: node.entries.map((entry) => entry.key),
    observabilityKeys:
      observability === undefined
        ? undefined
        : observability.value.kind === 'map'
          ? observability.value.entries.map((entry) => entry.key)
          : [],
  };
}
