// Gossip addresses in the `cluster` section (docs/configuration.md "cluster"): the `host:port` /
// `[ipv6]:port` grammar of `listen` and `peers[].host`, the peer-list normalisation that drops
// exact duplicates and entries provably this node, and the election advisories about entries that
// only look like this node. Pure. Must not: drop `localhost` or a short-vs-FQDN name (not
// provable).
import { isIP } from 'node:net';
import { pythonRepr } from '../common/index.js';

export interface ClusterAddress {
  /** As written. */
  readonly text: string;
  /** Brackets stripped (`::1`); '' for a bare `:port`. */
  readonly host: string;
  readonly port: number;
}

/** Parse `host:port` or `[ipv6]:port`; the problem as a string (the reference's texts). */
export function parseClusterAddress(text: string, what: string): ClusterAddress | string {
  let host: string;
  let portText: string;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end === -1 || text[end + 1] !== ':') return bracketProblem(text, what);
    host = text.slice(1, end);
    portText = text.slice(end + 2);
    if (!validPort(portText)) return bracketProblem(text, what);
  } else {
    const colons = text.split(':').length - 1;
    if (colons > 1) {
      return `cluster.${what} looks like a bare IPv6 address; write it as [ipv6]:port, got ${pythonRepr(text)}`;
    }
    const at = text.lastIndexOf(':');
    if (at === -1) return hostPortProblem(text, what);
    host = text.slice(0, at);
    portText = text.slice(at + 1);
    if (!validPort(portText)) return hostPortProblem(text, what);
  }
  return { text, host, port: Number(portText) };
}

function validPort(text: string): boolean {
  if (!/^[0-9]+$/.test(text)) return false;
  const port = Number(text);
  return port >= 1 && port <= 65_535;
}

function bracketProblem(text: string, what: string): string {
  return `cluster.${what} must be [ipv6]:port, got ${pythonRepr(text)}`;
}

function hostPortProblem(text: string, what: string): string {
  return `cluster.${what} must be host:port, got ${pythonRepr(text)}`;
}

type WildcardFamily = 'v4' | 'v6' | 'both' | 'none';

/** The family a wildcard listen host binds; null when the host is not a wildcard. */
export function wildcardFamily(host: string): WildcardFamily | null {
  switch (host) {
    case '0.0.0.0':
      return 'v4';
    case '::':
      return 'v6';
    case '*':
      return 'both';
    case '':
      return 'none';
    default:
      return null;
  }
}

export function isLoopbackLiteral(host: string): 'v4' | 'v6' | null {
  if (isIP(host) === 4) return host.startsWith('127.') ? 'v4' : null;
  if (isIP(host) === 6)
    return expandIpv6(host) === '0000:0000:0000:0000:0000:0000:0000:0001' ? 'v6' : null;
  return null;
}

function expandIpv6(host: string): string {
  const [head = '', tail = ''] = host.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = host.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = host.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return groups.map((group) => group.padStart(4, '0')).join(':');
}

export interface NormalisedPeers {
  /** First occurrences, config order, without duplicates and provable self entries. */
  readonly peers: readonly string[];
  /** Entries dropped as this node, for the advisory. */
  readonly droppedSelf: readonly string[];
}

/** Drop exact duplicates and entries provably this node (docs/configuration.md "cluster"). */
export function normalisePeers(
  entries: readonly ClusterAddress[],
  listen: ClusterAddress,
  nodeName: string,
): NormalisedPeers {
  const seen = new Set<string>();
  const peers: string[] = [];
  const droppedSelf: string[] = [];
  const family = wildcardFamily(listen.host);
  for (const entry of entries) {
    if (seen.has(entry.text)) continue;
    seen.add(entry.text);
    if (isProvablySelf(entry, listen, family, nodeName)) droppedSelf.push(entry.text);
    else peers.push(entry.text);
  }
  return { peers, droppedSelf };
}

function isProvablySelf(
  entry: ClusterAddress,
  listen: ClusterAddress,
  family: WildcardFamily | null,
  nodeName: string,
): boolean {
  if (entry.text === listen.text) return true;
  if (family === null || entry.port !== listen.port) return false;
  if (entry.host === nodeName) return true;
  const loopback = isLoopbackLiteral(entry.host);
  if (loopback === null) return false;
  return family === 'both' || family === loopback;
}

/**
 * Election advisories about entries that may be this node but cannot be proven to be: a host
 * whose first DNS label is the nodeName (listed by FQDN), and `localhost` or a loopback literal on
 * the listen port. Only when dropping them would leave a two-node (or smaller) cluster.
 */
export function selfLookalikeAdvisories(
  peers: readonly ClusterAddress[],
  listen: ClusterAddress,
  nodeName: string,
): string[] {
  const size = peers.length + 1;
  const out: string[] = [];
  const wildcard = wildcardFamily(listen.host) !== null;
  const fqdn = peers.filter(
    (peer) =>
      wildcard &&
      peer.port === listen.port &&
      peer.host !== nodeName &&
      peer.host.split('.')[0] === nodeName,
  );
  if (fqdn.length > 0 && size - fqdn.length <= 2) {
    out.push(
      `cluster.electLeader: ${fqdn.length} peer(s) look like this node listed by FQDN (${fqdn.map((peer) => peer.text).join(', ')}); ` +
        'if they are, the effective cluster is smaller than declared (a self-listing is recognised only at runtime, and a 2-node election cluster cannot survive any failure). Remove this node from its own cluster.peers',
    );
  }
  const loopback = peers.filter(
    (peer) =>
      peer.port === listen.port &&
      (peer.host.toLowerCase() === 'localhost' || isLoopbackLiteral(peer.host) !== null),
  );
  if (loopback.length > 0 && size - loopback.length <= 2) {
    out.push(
      `cluster.electLeader: ${loopback.length} peer(s) are loopback addresses on this node's own port (${loopback.map((peer) => peer.text).join(', ')}); ` +
        'they most likely reach this node itself, so the effective cluster is smaller than declared. Remove them from cluster.peers',
    );
  }
  return out;
}
