// The `cluster` section's shape (docs/configuration.md "cluster"): the resolved values every
// backend gets, the schema the walker types the block with, and the typing itself (which keys
// were written at all: an empty store block still counts). Resolution and its rules are in
// cluster-section.ts. Types and pure typing only.
import type { ClusterAddress } from './cluster-address.js';
import {
  ETCD_BLOCK,
  FILESYSTEM_BLOCK,
  KUBERNETES_BLOCK,
  type ResolvedEtcdBlock,
  type ResolvedFilesystemBlock,
  type ResolvedKubernetesBlock,
} from './cluster-lease-blocks.js';
import { childPath } from './issues.js';
import { walkSection, type WalkContext } from './schema.js';
import {
  bool,
  emptyNone,
  int,
  map,
  oneOf,
  opt,
  req,
  seq,
  str,
  type MapOut,
} from './schema-nodes.js';
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

const GOSSIP_KEYS = {
  listen: opt(str),
  tls: opt(map({ ca: req(str), cert: req(str), key: req(str) })),
  peers: opt(seq(map({ host: req(str) }))),
  nodeName: opt(emptyNone(str)),
  interval: opt(int),
  driftAfter: opt(int),
  connectTimeout: opt(int),
} as const;

export const CLUSTER_SCHEMA = map({
  backend: opt(oneOf(['gossip', 'kubernetes', 'etcd', 'filesystem'])),
  electLeader: opt(bool),
  distribution: opt(oneOf(['single-leader', 'spread'])),
  ...GOSSIP_KEYS,
  kubernetes: opt(KUBERNETES_BLOCK),
  etcd: opt(ETCD_BLOCK),
  filesystem: opt(FILESYSTEM_BLOCK),
  observability: opt(map({ shareNodeStats: opt(bool), ...GOSSIP_KEYS })),
});

export type TypedGossipKeys = MapOut<typeof GOSSIP_KEYS>;

/** The section as typed by CLUSTER_SCHEMA (the LocTable knows where each field was written). */
export type TypedClusterFields = MapOut<typeof CLUSTER_SCHEMA.fields>;

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
    if (ctx.locs.get(value, entry.key) === undefined) {
      ctx.locs.set(value, entry.key, {
        file: ctx.file,
        path: childPath(sectionPath, entry.key),
        line: entry.line,
      });
    }
  }
  return {
    fields: value,
    writtenKeys: node.entries.map((entry) => entry.key),
    observabilityKeys:
      observability === undefined
        ? undefined
        : observability.value.kind === 'map'
          ? observability.value.entries.map((entry) => entry.key)
          : [],
  };
}
