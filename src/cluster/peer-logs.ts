// The per-peer transition lines operators alert on (docs/clustering.md "Logs and metrics"): one
// line per status change, never per round, plus the one-time warning for a self-listing that
// leaves a two-node election cluster. Must not: repeat a line while the status stays the same.
import type { Logger } from '../logging/index.js';
import type { PeerStatus, PeerView } from './types.js';

/** Log what changed for `peer` (now in its new state) since `before`. */
export function logPeerTransition(
  logger: Logger,
  before: PeerStatus,
  peer: PeerView,
  suppressSelfInfo: boolean,
): void {
  const after = peer.status;
  if (after === before) return;
  const host = peer.host;
  const error = peer.lastError ?? '';
  switch (after) {
    case 'untrusted':
      logger.warn(`cluster: peer ${host} is untrusted -- TLS/cert verification failed: ${error}`);
      return;
    case 'unreachable':
      if (before !== 'unknown' && before !== 'untrusted') {
        logger.warn(`cluster: peer ${host} became unreachable: ${error}`);
      }
      return;
    case 'drifted':
      logger.warn(
        `cluster: peer ${host} drifted -- its job-set id has differed for >= driftAfter rounds (or reports a different fingerprint scheme)`,
      );
      return;
    case 'conflict':
      logger.info(`cluster: peer ${host} reports a duplicate nodeName: ${error}`);
      return;
    case 'self':
      if (!suppressSelfInfo) {
        logger.info(
          `cluster: peer ${host} is this node itself (a self-listing); excluded from the cluster size`,
        );
      }
      return;
    case 'agreed':
      if (before !== 'self') logger.info(`cluster: peer ${host} now agreed`);
      return;
    case 'syncing':
    case 'unknown':
      return;
  }
}

/**
 * The warning for a self-padded election config: an address that is this node (not provable at
 * config load) made a declared 3-node cluster an effective 2-node one, quorum 2 of 2.
 */
export function degenerateSelfListingWarning(selfHosts: readonly string[]): string {
  return (
    `cluster: peer ${selfHosts.join(', ')} is this node itself (a self-listing not recognisable at config load), ` +
    'so the effective electLeader cluster is 2 nodes: quorum is 2 of 2, any single failure stops every Leader job ' +
    'cluster-wide, and it is strictly worse than one replica. Remove the self entry from cluster.peers'
  );
}
