// The cluster panel (docs/dashboard.md "Cluster panel"): this node, its role, the agreement
// tally and quorum, the conflict warnings, and either the peer table (gossip: Peer, Node, Owns
// under spread, Status with its dot, Job set, Load when shared, Last seen) or the lease view of a
// lease backend (every non-null field of `lease`); under gossip, the timeline swimlane of each
// peer's status changes seen since the page opened (model/peer-timeline.ts), the last 30 minutes.
// Re-rendered on each `/cluster` answer.
import { peerDot, type ClusterSummary } from '../../model/cluster.js';
import { formatAge, formatUtc } from '../../model/format.js';
import { laneSegments, type PeerTimeline } from '../../model/peer-timeline.js';
import { currentSummary } from '../cluster-bar.js';
import type { AppContext } from '../context.js';
import { h } from '../dom.js';
import type { PanelDefinition } from './panel-host.js';

function peerTable(summary: ClusterSummary, nowMs: number): HTMLElement {
  const spread = summary.owns !== null;
  const load = summary.peers.some((peer) => peer.load !== null);
  return h(
    'table',
    { class: 'data-table cl-peers' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Peer'),
        h('th', { scope: 'col' }, 'Node'),
        spread ? h('th', { scope: 'col' }, 'Owns') : null,
        h('th', { scope: 'col' }, 'Status'),
        h('th', { scope: 'col' }, 'Job set'),
        load ? h('th', { scope: 'col' }, 'Load') : null,
        h('th', { scope: 'col' }, 'Last seen'),
      ),
    ),
    h(
      'tbody',
      {},
      ...summary.peers.map((peer) =>
        h(
          'tr',
          { 'data-peer': peer.node, 'data-status': peer.status },
          h('td', {}, peer.host),
          h('td', {}, peer.node || '—'),
          spread ? h('td', {}, String(peer.owns ?? 0)) : null,
          h(
            'td',
            { title: peer.lastError ?? '' },
            h('span', { class: `cl-dot dot-${peer.dot}`, 'aria-hidden': 'true' }),
            ` ${peer.status}`,
          ),
          h('td', { class: 'mono' }, peer.jobSet || '—'),
          load ? h('td', {}, peer.load ?? '—') : null,
          h(
            'td',
            {},
            peer.status === 'self'
              ? 'live'
              : peer.lastSeenMs === null
                ? 'never'
                : `${formatAge(nowMs - peer.lastSeenMs)} ago`,
          ),
        ),
      ),
    ),
  );
}

export const TIMELINE_WINDOW_MS = 30 * 60_000;

/** One lane per peer: its status spans across the window, with the changes spelled out. */
function swimlane(timeline: PeerTimeline, nowMs: number): HTMLElement | null {
  const lanes = timeline.lanes();
  if (lanes.length === 0 || timeline.startMs === null) return null;
  const fromMs = Math.max(timeline.startMs, nowMs - TIMELINE_WINDOW_MS);
  const span = Math.max(1, nowMs - fromMs);
  return h(
    'section',
    { class: 'cl-timeline', 'aria-label': 'Peer timeline' },
    h('h3', {}, `Timeline · the last ${formatAge(span)} (status changes seen by this page)`),
    ...lanes.map((lane) => {
      const segments = laneSegments(lane, fromMs, nowMs);
      const told = lane.changes
        .slice(-5)
        .map((change) => `${change.status} at ${formatUtc(change.atMs)}`)
        .join(', ');
      const track = h('div', {
        class: 'cl-track',
        role: 'img',
        'aria-label': `${lane.peer}: ${told}`,
      });
      for (const segment of segments) {
        const bar = h('span', {
          class: `cl-seg dot-${peerDot(segment.status)}`,
          title: `${lane.peer}: ${segment.status} from ${formatUtc(segment.startMs)} for ${formatAge(segment.endMs - segment.startMs)}`,
          'data-status': segment.status,
        });
        bar.style.left = `${((segment.startMs - fromMs) / span) * 100}%`;
        bar.style.width = `${Math.max(0.5, ((segment.endMs - segment.startMs) / span) * 100)}%`;
        track.append(bar);
      }
      return h(
        'div',
        { class: 'cl-lane', 'data-peer': lane.peer },
        h('span', { class: 'cl-lane-peer' }, lane.peer),
        track,
        h('span', { class: 'cl-lane-now' }, lane.changes[lane.changes.length - 1]?.status ?? ''),
      );
    }),
  );
}

export function renderCluster(
  summary: ClusterSummary | null,
  nowMs: number,
  timeline?: PeerTimeline,
): Node[] {
  if (summary === null) return [h('p', { class: 'muted' }, 'Clustering is off on this daemon.')];
  const facts: [string, string][] = [
    ['Node', summary.node],
    ['Backend', summary.backend],
    ['Role', summary.roleText],
  ];
  if (summary.tally !== null)
    facts.push(['Agreement', `${summary.tally.agreed} of ${summary.tally.of} peers agree`]);
  facts.push(['Quorum', summary.quorumText]);
  if (summary.owns !== null) facts.push(['Owns', `${summary.owns} jobs`]);
  return [
    h(
      'dl',
      { class: 'facts cl-facts' },
      ...facts.flatMap(([key, value]) => [h('dt', {}, key), h('dd', {}, value)]),
    ),
    ...summary.alerts.map((text) => h('p', { class: 'cl-warning', role: 'alert' }, text)),
    summary.lease === null
      ? peerTable(summary, nowMs)
      : h(
          'table',
          { class: 'data-table cl-lease' },
          h('caption', {}, `${summary.backend} lease`),
          h(
            'tbody',
            {},
            ...summary.lease.map(([key, value]) =>
              h('tr', {}, h('th', { scope: 'row' }, key), h('td', { class: 'mono' }, value)),
            ),
          ),
        ),
    summary.lease === null && timeline !== undefined ? swimlane(timeline, nowMs) : null,
  ].filter((node) => node !== null);
}

export const clusterPanel: PanelDefinition = {
  id: 'cluster',
  title: 'Cluster',
  mount(body, ctx: AppContext) {
    const render = (): void =>
      body.replaceChildren(
        ...renderCluster(currentSummary(ctx.store), ctx.clock.now(), ctx.store.peerTimeline),
      );
    render();
    const off = ctx.store.on('cluster', render);
    return { dispose: off };
  },
};
