// The `cluster` section's rules (docs/configuration.md "cluster"): every load-time check and
// message for any backend (gossip, kubernetes, etcd, filesystem, the observability overlay), and
// the resolution into a ResolvedCluster with its advisories (logged when a manager is built, and
// by `-v`). The schema and the typing are in cluster-schema.ts.
// Must not: open sockets or read certificate files (that is the cluster manager's business, and
// `-v`'s dry run).
import { hostname as systemHostname } from 'node:os';
import * as path from 'node:path';
import { atMostCodePoints, isPythonPrintable, pythonRepr } from '../common/index.js';
import {
  normalisePeers,
  parseClusterAddress,
  selfLookalikeAdvisories,
  type ClusterAddress,
} from './cluster-address.js';
import {
  resolveEtcdBlock,
  resolveFilesystemBlock,
  resolveKubernetesBlock,
  type BlockProblem,
} from './cluster-lease-blocks.js';
import type {
  ClusterBackend,
  ClusterCommon,
  ClusterDistributionSetting,
  ResolvedCluster,
  ResolvedGossipCluster,
  TypedCluster,
  TypedClusterFields,
  TypedGossipKeys,
} from './cluster-schema.js';
import {
  childPath,
  indexPath,
  issueAt,
  type ConfigIssue,
  type Loc,
  type LocTable,
} from './issues.js';

export interface ClusterResolveContext {
  readonly locs: LocTable;
  /** TLS, store and password-file paths resolve against it. */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The default nodeName; the system hostname unless a test says otherwise. */
  readonly hostname?: () => string;
}

const DEFAULTS = { connectTimeout: 10, interval: 30, driftAfter: 3 } as const;
const MAX_NODE_NAME_CHARS = 256;
const STORE_BLOCKS = ['kubernetes', 'etcd', 'filesystem'] as const;
const GOSSIP_ONLY_KEYS = ['listen', 'tls', 'peers', 'interval', 'driftAfter'] as const;

/** A name peers refuse (over 256 code points, or not printable) would never agree: refuse it. */
function checkNodeName(name: string, where: Loc, block: string, report: Report): void {
  if (atMostCodePoints(name, MAX_NODE_NAME_CHARS) && isPythonPrintable(name)) return;
  report(
    where,
    `${block}.nodeName must be at most ${MAX_NODE_NAME_CHARS} printable characters (peers refuse any other name on /peer, so this node could never agree with them), got ${pythonRepr(name)}`,
  );
}

type At = (container: object | undefined, key: string, parent: string) => Loc;
type Report = (where: Loc, message: string) => void;
type GossipCommon = Pick<ClusterCommon, 'nodeName' | 'connectTimeoutMs' | 'source'>;

/**
 * Resolve a typed `cluster` section (`loc` = where `cluster:` was written): the value (the
 * caller freezes it), or every problem found, each located at the offending key.
 */
export async function resolveClusterSection(
  section: TypedCluster,
  loc: Loc,
  ctx: ClusterResolveContext,
): Promise<ResolvedCluster | ConfigIssue[]> {
  const typed = section.fields;
  const issues: ConfigIssue[] = [];
  const at: At = (container, key, parent) =>
    (container === undefined ? undefined : ctx.locs.get(container, key)) ?? {
      ...loc,
      path: childPath(parent, key),
    };
  const report: Report = (where, message) => {
    issues.push(issueAt(where, message));
  };
  const backend = typed.backend ?? 'gossip';
  const nodeName = typed.nodeName || (ctx.hostname ?? systemHostname)();
  checkNodeName(nodeName, at(typed, 'nodeName', 'cluster'), 'cluster', report);
  const connectTimeout = typed.connectTimeout ?? DEFAULTS.connectTimeout;
  if (connectTimeout <= 0) {
    report(at(typed, 'connectTimeout', 'cluster'), 'cluster.connectTimeout must be > 0');
  }
  for (const block of STORE_BLOCKS) {
    if (block !== backend && section.writtenKeys.includes(block)) {
      report(
        at(typed, block, 'cluster'),
        `cluster.${block} is configured but cluster.backend is '${backend}'; that store block would be silently ignored. Set backend: ${block} to use it, or remove the cluster.${block} block.`,
      );
    }
  }
  const common: GossipCommon = {
    nodeName,
    connectTimeoutMs: connectTimeout * 1000,
    source: Object.freeze({ file: loc.file, line: loc.line }),
  };
  if (backend === 'gossip') {
    const gossip = resolveGossipBackend(section, common, ctx.cwd, at, report);
    return issues.length > 0 || gossip === null ? issues : gossip;
  }
  const lease = await resolveLeaseBackend(section, backend, common, ctx, at, report);
  return issues.length > 0 || lease === null ? issues : lease;
}

function resolveGossipBackend(
  section: TypedCluster,
  common: GossipCommon,
  cwd: string,
  at: At,
  report: Report,
): ResolvedGossipCluster | null {
  const typed = section.fields;
  const gossip = resolveGossip(typed, common, {
    blockPath: 'cluster',
    electLeader: typed.electLeader ?? false,
    distribution: typed.distribution ?? 'single-leader',
    missing: (key) => `cluster.backend gossip requires cluster.${key}`,
    cwd,
    at,
    report,
  });
  const advisories: string[] = [];
  const written = section.observabilityKeys;
  if (written !== undefined) {
    for (const key of ['listen', 'tls', 'peers'] as const) {
      if (!written.includes(key)) continue;
      report(
        at(typed.observability, key, 'cluster.observability'),
        `cluster.observability.${key} is redundant with backend: gossip (the election mesh already serves /peer and carries the node stats); remove it`,
      );
    }
    for (const key of ['nodeName', 'interval', 'driftAfter', 'connectTimeout'] as const) {
      if (!written.includes(key)) continue;
      advisories.push(
        `cluster.observability.${key} only applies to the overlay mesh of a lease backend; with backend: gossip the election mesh's cluster.${key} applies`,
      );
    }
  }
  if (gossip === null) return null;
  return {
    ...gossip,
    advisories: [...gossip.advisories, ...advisories],
    shareNodeStats: written !== undefined && (typed.observability?.shareNodeStats ?? true),
  };
}

async function resolveLeaseBackend(
  section: TypedCluster,
  backend: Exclude<ClusterBackend, 'gossip'>,
  common: GossipCommon,
  ctx: ClusterResolveContext,
  at: At,
  report: Report,
): Promise<ResolvedCluster | null> {
  const typed = section.fields;
  const advisories: string[] = [];
  if (typed.distribution === 'spread') {
    report(
      at(typed, 'distribution', 'cluster'),
      `cluster.distribution: spread is not supported with the '${backend}' backend (a single lease holder cannot also be a per-job owner; use backend: gossip for spread)`,
    );
  }
  const ignored = GOSSIP_ONLY_KEYS.filter((key) => section.writtenKeys.includes(key));
  if (ignored.length > 0) {
    advisories.push(
      `${ignored.map((key) => `cluster.${key}`).join(', ')} configured but ignored by the '${backend}' backend (those keys apply only to backend: gossip)` +
        (ignored.includes('tls')
          ? `; note cluster.tls does NOT secure the lease store -- ${backend === 'etcd' ? 'use cluster.etcd.tls for that' : "the store's own credentials do"}`
          : ''),
    );
  }
  if (typed.electLeader === false) {
    advisories.push(
      `cluster.electLeader: false is ignored by the '${backend}' backend; a lease backend always enables leader election`,
    );
  }
  const overlay = resolveOverlay(section, common, backend, ctx.cwd, at, report);
  const base = {
    ...common,
    electLeader: true,
    distribution: 'single-leader' as const,
    advisories,
    shareNodeStats: overlay !== null && overlay.shareNodeStats,
    observabilityMesh: overlay,
  };
  const blockProblems = (
    container: object | undefined,
    problems: readonly BlockProblem[],
  ): null => {
    for (const problem of problems) {
      report(at(container, problem.key, `cluster.${backend}`), problem.message);
    }
    return null;
  };
  switch (backend) {
    case 'kubernetes': {
      const block = resolveKubernetesBlock(typed.kubernetes ?? {}, common.nodeName);
      if (!block.ok) return blockProblems(typed.kubernetes, block.problems);
      return { ...base, backend, kubernetes: block.value };
    }
    case 'etcd': {
      const resolved = await resolveEtcdBlock(typed.etcd ?? {}, ctx);
      advisories.push(...resolved.advisories);
      if (!resolved.block.ok) return blockProblems(typed.etcd, resolved.block.problems);
      return { ...base, backend, etcd: resolved.block.value };
    }
    case 'filesystem': {
      const block = resolveFilesystemBlock(typed.filesystem ?? {}, ctx);
      if (!block.ok) return blockProblems(typed.filesystem, block.problems);
      return { ...base, backend, filesystem: block.value };
    }
  }
}

interface GossipResolveOptions {
  readonly blockPath: string;
  readonly electLeader: boolean;
  readonly distribution: ClusterDistributionSetting;
  /** The message for a missing listen / tls / peers. */
  readonly missing: (key: string) => string;
  readonly cwd: string;
  readonly at: At;
  readonly report: Report;
}

/** The gossip keys of `block` (the section itself, or the observability overlay). */
function resolveGossip(
  block: TypedGossipKeys,
  common: GossipCommon,
  options: GossipResolveOptions,
): Omit<ResolvedGossipCluster, 'shareNodeStats'> | null {
  const { blockPath, electLeader, distribution, at, report } = options;
  let valid = true;
  const fail = (where: Loc, message: string): void => {
    valid = false;
    report(where, message);
  };
  const interval = block.interval ?? DEFAULTS.interval;
  const driftAfter = block.driftAfter ?? DEFAULTS.driftAfter;
  if (interval <= 0) fail(at(block, 'interval', blockPath), `${blockPath}.interval must be > 0`);
  if (driftAfter < 1) {
    fail(at(block, 'driftAfter', blockPath), `${blockPath}.driftAfter must be >= 1`);
  }
  for (const key of ['listen', 'tls', 'peers'] as const) {
    if (block[key] === undefined) fail(at(undefined, key, blockPath), options.missing(key));
  }
  let listen: ClusterAddress | null = null;
  if (block.listen !== undefined) {
    const parsed = parseClusterAddress(block.listen, 'listen');
    if (typeof parsed === 'string') fail(at(block, 'listen', blockPath), parsed);
    else listen = parsed;
  }
  const entries: ClusterAddress[] = [];
  (block.peers ?? []).forEach((peer, index) => {
    const parsed = parseClusterAddress(peer.host, 'peers[].host');
    if (typeof parsed !== 'string') entries.push(parsed);
    else fail(at(peer, 'host', indexPath(childPath(blockPath, 'peers'), index)), parsed);
  });
  if (!valid || listen === null || block.tls === undefined) return null;
  const normalised = normalisePeers(entries, listen, common.nodeName);
  const size = normalised.peers.length + 1;
  const advisories: string[] = [];
  if (electLeader) {
    if (size === 2) {
      report(
        at(block, 'peers', blockPath),
        'cluster.electLeader needs a fault-tolerant cluster, but this config declares only 2 nodes (1 peer). A 2-node quorum is 2, so both must be up: any single failure stops every Leader job, strictly worse than a single replica. Use 3 or more nodes, or electLeader: false (attestation only)',
      );
      return null;
    }
    if (size > 2 && size % 2 === 0) {
      advisories.push(
        `cluster.electLeader: an even cluster size (${size} nodes) tolerates no more failures than ${size - 1} nodes (quorum ${Math.floor(size / 2) + 1}) while having one more node that can fail; prefer an odd size`,
      );
    }
    const kept = new Set(normalised.peers);
    const firstOfEach = entries.filter((entry) => kept.delete(entry.text));
    advisories.push(...selfLookalikeAdvisories(firstOfEach, listen, common.nodeName));
  } else if (distribution !== 'single-leader') {
    advisories.push(
      `cluster.distribution='${distribution}' has no effect without electLeader; every node runs every job. Set electLeader: true, or remove distribution`,
    );
  }
  const absolute = (file: string): string => path.resolve(options.cwd, file);
  return {
    ...common,
    backend: 'gossip',
    electLeader,
    distribution,
    intervalMs: interval * 1000,
    driftAfter,
    listen,
    tls: {
      ca: absolute(block.tls.ca),
      cert: absolute(block.tls.cert),
      key: absolute(block.tls.key),
    },
    peers: normalised.peers,
    advisories,
  };
}

/** The election-inert gossip overlay of a lease backend (`cluster.observability`). */
function resolveOverlay(
  section: TypedCluster,
  common: GossipCommon,
  backend: ClusterBackend,
  cwd: string,
  at: At,
  report: Report,
): ResolvedGossipCluster | null {
  if (section.observabilityKeys === undefined) return null;
  const block: NonNullable<TypedClusterFields['observability']> =
    section.fields.observability ?? {};
  const where = 'cluster.observability';
  if (block.nodeName) checkNodeName(block.nodeName, at(block, 'nodeName', where), where, report);
  if (block.connectTimeout !== undefined && block.connectTimeout <= 0) {
    report(at(block, 'connectTimeout', where), `${where}.connectTimeout must be > 0`);
  }
  const overlay = resolveGossip(
    block,
    {
      ...common,
      nodeName: block.nodeName || common.nodeName,
      connectTimeoutMs: (block.connectTimeout ?? DEFAULTS.connectTimeout) * 1000,
    },
    {
      blockPath: 'cluster.observability',
      electLeader: false,
      distribution: 'single-leader',
      missing: (key) =>
        `cluster.observability requires cluster.observability.${key} when backend is '${backend}' (the overlay is a gossip mesh of its own)`,
      cwd,
      at,
      report,
    },
  );
  return overlay === null ? null : { ...overlay, shareNodeStats: block.shareNodeStats ?? true };
}
