// E2E: two daemons elect through `backend: filesystem` on one directory. A Leader job firing every
// second runs on the holder only (a shared witness file: never two nodes in one second), the
// Leader @reboot one-shot runs once in the cluster, GET /cluster shows the lease-shaped view, a
// SIGKILLed holder is replaced, and a restarted node does not re-run the one-shot (the record
// is per job set).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  getJson,
  readLines,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForFile,
  waitForLines,
  webUrlOf,
  writeConfig,
} from './harness.js';

test(
  'filesystem lease: one holder runs Leader jobs; a SIGKILLed holder is replaced',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const witness = join(dir, 'witness.txt');
    const boots = join(dir, 'boots.txt');
    const config = (node: string): string => `web:
  listen:
    - http://127.0.0.1:0
cluster:
  backend: filesystem
  nodeName: ${node}
  filesystem:
    path: ${shellQuote(join(dir, 'election'))}
    ttl: 5
jobs:
  - name: lead
    command: echo "$(date +%s) $NODE" >> ${shellQuote(witness)}
    schedule: "* * * * * * *"
    clusterPolicy: Leader
  - name: boot
    command: echo "$NODE" >> ${shellQuote(boots)}
    schedule: "@reboot"
    clusterPolicy: Leader
`;
    const start = (node: string) =>
      startDaemon(t, ['-c', join(dir, `${node}.yaml`)], { env: { ...process.env, NODE: node } });
    await writeConfig(dir, config('node-a'), 'node-a.yaml');
    await writeConfig(dir, config('node-b'), 'node-b.yaml');
    const daemons = { 'node-a': start('node-a'), 'node-b': start('node-b') };
    await daemons['node-a'].waitForLog(/^cluster: filesystem election ready at /, 30_000);
    await daemons['node-b'].waitForLog(/^cluster: filesystem election ready at /, 30_000);
    const first = await waitForLines(witness, 3, 30_000);
    type Node = keyof typeof daemons;
    const leader = first[0]!.split(' ')[1] as Node;
    const follower: Node = leader === 'node-a' ? 'node-b' : 'node-a';
    assert.deepEqual(await waitForLines(boots, 1), [leader]);

    const views = await Promise.all(
      ([leader, follower] as const).map(async (node) =>
        getJson<Record<string, unknown>>(`${await webUrlOf(daemons[node])}/cluster`),
      ),
    );
    assert.deepEqual(
      views.map((view) => [view.backend, view.leader, view.is_leader, view.quorate, view.peers]),
      [
        ['filesystem', leader, true, true, []],
        ['filesystem', leader, false, true, []],
      ],
    );
    const lease = views[0]!.lease as Record<string, unknown>;
    assert.equal(lease.holder, leader);
    assert.match(String(lease.identity), new RegExp(`^${leader}#[0-9a-f]{12}$`));

    await daemons[leader].kill();
    const taken = await waitForFile(
      witness,
      (content) => content.includes(` ${follower}\n`),
      30_000,
    );
    assert.ok(taken.includes(` ${follower}\n`));
    await daemons[follower].waitForLog(/^cluster: this node acquired scheduled-job leadership$/);

    // The restarted node follows and retires the one-shot: it already ran for this job set.
    const restarted = start(leader);
    await restarted.waitForLog(
      /^cluster: deferred @reboot job boot already ran in the cluster; standing down here$/,
      30_000,
    );
    await waitForLines(witness, readLines(witness).length + 2);
    assert.equal(await restarted.stop(), 0);
    assert.equal(await daemons[follower].stop(), 0);

    assert.deepEqual(readLines(boots), [leader], 'the Leader @reboot ran once in the cluster');
    const bySecond = new Map<string, Set<string>>();
    for (const line of readLines(witness)) {
      const [second, node] = line.split(' ') as [string, string];
      bySecond.set(second, (bySecond.get(second) ?? new Set()).add(node));
    }
    const doubles = [...bySecond].filter(([, nodes]) => nodes.size > 1);
    assert.deepEqual(doubles, [], 'never two nodes running the Leader job in one second');
  },
);
