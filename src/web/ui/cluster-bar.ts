// The cluster strip under the header and the CLUSTER ALERT banner (docs/dashboard.md "Cluster
// panel"). Registers the `/cluster` poll: every round while the daemon reports clustering on,
// every 15th round while it is off (a reload can turn it on). The strip shows this node, its
// role, the agreement tally, the quorum and one dot per peer, with buttons to the cluster panel
// and the fleet matrix; the red banner lists every conflict and a lost quorum.
// Must not: poll `/cluster` every round on a daemon without a cluster.
import {
  countOwners,
  summarizeCluster,
  type ClusterSummary,
  type ClusterWire,
} from '../model/cluster.js';
import type { AppContext } from './context.js';
import { h, setText } from './dom.js';
import type { AppStore } from './store.js';

const OFF_EVERY = 15;

/** The job owners the cluster summary counts (spread only; `clusterOwner`). */
export function ownersOf(store: AppStore): ReadonlyMap<string, number> {
  return countOwners((store.snapshot?.rows ?? []).map((row) => row.job.clusterOwner));
}

export function currentSummary(store: AppStore): ClusterSummary | null {
  return store.cluster.kind === 'on' ? summarizeCluster(store.cluster.wire, ownersOf(store)) : null;
}

export class ClusterBar {
  readonly element: HTMLElement;
  readonly alert: HTMLElement;

  constructor(ctx: AppContext) {
    const { store } = ctx;
    let offRounds = 0;
    ctx.poller.addSource({
      id: 'cluster',
      every: 1,
      active: () => store.cluster.kind !== 'off' || ++offRounds % OFF_EVERY === 0,
      poll: async (api, signal) => {
        const wire = await api.optionalJson<ClusterWire>('/cluster', signal);
        if (wire !== null && wire.enabled && wire.backend === 'gossip')
          store.peerTimeline.record(
            wire.peers
              .filter((peer) => peer.status !== 'self')
              .map((peer) => ({ peer: peer.node_name ?? peer.host, status: peer.status })),
            ctx.clock.now(),
          );
        store.setCluster(wire === null || !wire.enabled ? { kind: 'off' } : { kind: 'on', wire });
      },
    });

    const node = h('strong', { class: 'cl-node' });
    const role = h('span', { class: 'cl-role' });
    const tally = h('span', { class: 'cl-tally' });
    const quorum = h('span', { class: 'cl-quorum' });
    const dots = h('span', { class: 'cl-dots', role: 'list', 'aria-label': 'Peers' });
    const fleet = h(
      'button',
      { class: 'btn btn-small', type: 'button', onclick: () => ctx.nav.openPanel('fleet') },
      'Fleet',
    );
    this.element = h(
      'section',
      { class: 'cluster-bar', hidden: true, 'aria-label': 'Cluster' },
      h('span', { class: 'cl-label' }, 'Cluster'),
      node,
      role,
      tally,
      quorum,
      dots,
      h(
        'span',
        { class: 'cl-actions' },
        h(
          'button',
          { class: 'btn btn-small', type: 'button', onclick: () => ctx.nav.openPanel('cluster') },
          'Details',
        ),
        fleet,
      ),
    );
    const alertList = h('ul', { class: 'cl-alerts' });
    this.alert = h(
      'section',
      { class: 'cluster-alert', hidden: true, role: 'alert', 'aria-label': 'Cluster alert' },
      h('strong', {}, 'CLUSTER ALERT'),
      alertList,
    );

    const render = (): void => {
      const summary = currentSummary(store);
      this.element.hidden = summary === null;
      this.alert.hidden = summary === null || summary.alerts.length === 0;
      if (summary === null) return;
      this.element.dataset['role'] = summary.role.kind;
      setText(node, summary.node);
      setText(
        role,
        `${summary.backend === 'gossip' ? '' : `${summary.backend} · `}${summary.roleText}${summary.owns === null ? '' : ` · owns ${summary.owns}`}`,
      );
      setText(
        tally,
        summary.tally === null ? '' : `${summary.tally.agreed}/${summary.tally.of} agreed`,
      );
      setText(quorum, summary.quorumText);
      dots.replaceChildren(
        ...summary.peers.map((peer) =>
          h('span', {
            class: `cl-dot dot-${peer.dot}`,
            role: 'listitem',
            title: `${peer.node || peer.host}: ${peer.status}`,
            'aria-label': `${peer.node || peer.host}: ${peer.status}`,
          }),
        ),
      );
      fleet.hidden = !summary.fleet;
      alertList.replaceChildren(...summary.alerts.map((text) => h('li', {}, text)));
    };
    store.on('cluster', render);
    store.on('snapshot', () => {
      if (store.cluster.kind === 'on' && store.cluster.wire.distribution === 'spread') render();
    });
  }
}
