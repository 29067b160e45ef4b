// The cluster panel (docs/dashboard.md "Cluster panel"): this node, its role, the agreement
// tally and quorum, the conflict warnings, and either the peer table (gossip: Peer, Node, Owns
// under spread, Status with its dot, Job set, Load when shared, Last seen) or the lease view of a
// lease backend (every non-null field of `lease`). Re-rendered on each `/cluster` answer.
import type { ClusterSummary } from '../../model/cluster.js';
import { formatAge } from '../../model/format.js';
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

export function renderCluster(summary: ClusterSummary | null, nowMs: number): Node[] {
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
  ];
}

export const clusterPanel: PanelDefinition = {
  id: 'cluster',
  title: 'Cluster',
  mount(body, ctx: AppContext) {
    const render = (): void =>
      body.replaceChildren(...renderCluster(currentSummary(ctx.store), ctx.clock.now()));
    render();
    const off = ctx.store.on('cluster', render);
    return { dispose: off };
  },
};
