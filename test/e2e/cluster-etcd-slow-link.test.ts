// E2E: the etcd backend over a slow link (docs/clustering.md "etcd"). One real etcd (Debian's
// `etcd` on random loopback ports); two daemons at `ttl: 3`, each reaching it through a TCP proxy
// of its own. Once the holder leads, its proxy holds every byte 150 ms each way: the holder must
// keep leadership across 12 consecutive ticks of a 1-second Leader job with no skipped slot
// (before, each request had 0.2 s and the holder stood down while its keepalives still held the
// lease). Then its link is cut: it must stand down before the TTL lets the other node take over,
// so no second runs on both nodes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEtcd } from '../../src/leadership/testing.js';
import {
  getJson,
  leaseNodeYaml,
  readWitness,
  TcpProxy,
  waitFor,
  witnessJob,
  witnessPath,
  type ClusterBody,
  type Firing,
} from './cluster-harness.js';
import {
  defer,
  startDaemon,
  useTempDir,
  webUrlOf,
  writeConfig,
  type DaemonProcess,
} from './harness.js';

const DELAY_MS = 150;
const TICKS = 12;
const LOST = /^cluster: this node lost scheduled-job leadership$/;
const ACQUIRED = /^cluster: this node acquired scheduled-job leadership$/;

test(
  'etcd at ttl 3: a holder 150 ms away keeps leadership; cut off, it stands down before a takeover',
  { timeout: 120_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const witness = witnessPath(dir);
    const etcd = await startEtcd(1);
    defer(t, () => etcd.stop());
    const etcdPort = Number(new URL(etcd.endpoints[0]!).port);
    const links = { a: await TcpProxy.start(etcdPort), b: await TcpProxy.start(etcdPort) };
    defer(t, () => Promise.all([links.a.close(), links.b.close()]));
    const start = async (name: 'a' | 'b'): Promise<{ daemon: DaemonProcess; base: string }> => {
      const endpoints = [`http://127.0.0.1:${links[name].port}`];
      const yaml = leaseNodeYaml(
        name,
        { backend: 'etcd', endpoints, ttl: 3 },
        witnessJob('lead', 'Leader', witness),
      );
      const file = await writeConfig(dir, yaml, `${name}.yaml`);
      const daemon = startDaemon(t, ['-c', file], { env: { ...process.env, YC_NODE: name } });
      return { daemon, base: await webUrlOf(daemon, 30_000) };
    };
    const cluster = (base: string): Promise<ClusterBody> => getJson<ClusterBody>(base, '/cluster');
    const lead = (): Firing[] => readWitness(witness).filter((firing) => firing.job === 'lead');
    const logsOf = (daemon: DaemonProcess): string =>
      daemon
        .logs()
        .map((record) => record.msg)
        .join('\n');

    // a takes the lease first; b follows it.
    const a = await start('a');
    await waitFor(async () => (await cluster(a.base)).is_leader, 'a holding the lease', {
      timeoutMs: 20_000,
    });
    const b = await start('b');
    await waitFor(
      async () => {
        const view = await cluster(b.base);
        return view.quorate && view.leader === 'a';
      },
      'b following a',
      { timeoutMs: 20_000 },
    );

    // a's first second as holder is its handover hold (docs/clustering.md "Clock skew"): wait
    // for its first run, so the window below starts after the hold however fast the start was.
    await waitFor(() => Promise.resolve(lead().some((firing) => firing.node === 'a')), 'a tick', {
      timeoutMs: 10_000,
    });
    // Then a's link turns slow. It costs nothing: every tick from the next one on runs, on a.
    const skippedBefore = a.daemon.logMessages(/^Job lead skipped/).length;
    links.a.delay(DELAY_MS);
    const firstSecond = Math.floor(Date.now() / 1000) + 1;
    const window = Array.from({ length: TICKS }, (_, i) => firstSecond + i);
    await waitFor(
      () => Promise.resolve(lead().some((firing) => firing.second >= window.at(-1)!)),
      `${TICKS} ticks`,
      { timeoutMs: (TICKS + 10) * 1000 },
    ).catch(() => undefined); // the assertion below says which ticks ran where

    const ran = window.map((second) =>
      lead()
        .filter((firing) => firing.second === second)
        .map((firing) => firing.node)
        .join(','),
    );
    assert.deepEqual(
      ran,
      window.map(() => 'a'),
      `each tick once, on a (seconds ${firstSecond}…):\n--- a:\n${logsOf(a.daemon)}`,
    );
    assert.equal(a.daemon.logMessages(LOST).length, 0, 'a never lost leadership');
    assert.equal(
      a.daemon.logMessages(/^Job lead skipped/).length,
      skippedBefore,
      'a never skipped a tick once its link was slow',
    );

    // Cut off, a stands down before etcd lets its lease go; b takes over after that.
    const cutMs = Date.now();
    links.a.cut();
    const lost = await a.daemon.waitForLog(LOST, 10_000);
    const acquired = await b.daemon.waitForLog(ACQUIRED, 15_000);
    await waitFor(() => Promise.resolve(lead().filter((f) => f.node === 'b').length >= 2), 'b');
    const firings = lead();
    const bySecond = new Map<number, string[]>();
    for (const firing of firings) {
      bySecond.set(firing.second, [...(bySecond.get(firing.second) ?? []), firing.node]);
    }
    const doubles = [...bySecond].filter(([, nodes]) => nodes.length > 1);
    assert.deepEqual(doubles, [], 'no second ran on both nodes');
    const lastOfA = Math.max(...firings.filter((f) => f.node === 'a').map((f) => f.second));
    const firstOfB = Math.min(...firings.filter((f) => f.node === 'b').map((f) => f.second));
    assert.ok(lastOfA < firstOfB, `a ran ${lastOfA}, after b took over at ${firstOfB}`);
    assert.ok(lost.time < acquired.time, 'a stood down before b acquired');
    t.diagnostic(
      `cut at ${cutMs}: a stood down after ${lost.time - cutMs} ms, b acquired after ` +
        `${acquired.time - cutMs} ms; ${firstOfB - lastOfA - 1} skipped tick(s) in the handover`,
    );
  },
);
