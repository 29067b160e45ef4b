// E2E: cross-node retry resume (docs/durable-state.md "Retry resume across nodes") with three
// real daemons under `distribution: spread` over mTLS, sharing one state directory (topology
// shared), each in a UTS namespace of its own so the store tells their hosts apart. The job's
// rendezvous owner is a while only a and b run, and c once c joins: a's run fails, c joins
// mid-ladder, a hands the ladder off at its due time, and c's housekeeping pass claims it and
// runs the retry, once. The job appends `<second> <node> <first|retry>` to a witness file.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { hrwOwner } from '../../src/cluster/index.js';
import { makeTestCa } from '../../src/cluster/testing.js';
import {
  getJson,
  NodeDaemons,
  ProxiedMesh,
  readWitness,
  waitFor,
  writeNodeConfig,
  type ClusterBody,
} from './cluster-harness.js';
import {
  canSetHostName,
  defer,
  readStoreStream,
  secondsSchedule,
  shellQuote,
  useTempDir,
} from './harness.js';

const NAMES = ['a', 'b', 'c'] as const;
type Name = (typeof NAMES)[number];
const RETRY_DELAY_SECONDS = 15;

/** A job name whose owner is a among {a, b} and c among {a, b, c}. */
function movingJobName(): string {
  for (let index = 0; ; index++) {
    const name = `resume-${index}`;
    if (hrwOwner(name, ['a', 'b']) === 'a' && hrwOwner(name, [...NAMES]) === 'c') return name;
  }
}

test(
  'a ladder handed off mid-way by an ownership move runs its retry once, on the new owner',
  { skip: canSetHostName() ? false : 'needs unshare -u (root) to give each daemon a host name' },
  async (t) => {
    const dir = await useTempDir(t);
    const mesh = await ProxiedMesh.create(dir, NAMES, makeTestCa('resume'));
    defer(t, () => mesh.close());
    const job = movingJobName();
    const marker = join(dir, 'failed-once');
    const store = join(dir, 'store');
    // One slot, far enough ahead for a and b to boot and agree; the next is a minute later.
    const slotMs = Math.ceil((Date.now() + 12_000) / 1000) * 1000;
    const jobs =
      `  - name: ${job}\n` +
      `    command: |\n` +
      `      if [ -e ${shellQuote(marker)} ]; then\n` +
      `        echo "$(date +%s) $YC_NODE retry" >> ${shellQuote(mesh.witness)}\n` +
      `      else\n` +
      `        touch ${shellQuote(marker)}\n` +
      `        echo "$(date +%s) $YC_NODE first" >> ${shellQuote(mesh.witness)}\n` +
      `        exit 1\n` +
      `      fi\n` +
      `    schedule: "${secondsSchedule([slotMs])}"\n` +
      `    clusterPolicy: Leader\n` +
      `    onFailure:\n` +
      `      retry:\n` +
      `        maximumRetries: 2\n` +
      `        initialDelay: ${RETRY_DELAY_SECONDS}\n` +
      `        maximumDelay: 60\n` +
      `        backoffMultiplier: 2\n`;
    const sections = `state:\n  path: ${store}\n  topology: shared\n`;
    for (const name of NAMES) {
      await writeNodeConfig(
        dir,
        name,
        mesh.config(name, { distribution: 'spread', jobs, sections }),
      );
    }
    const nodes = new NodeDaemons<Name>(t, dir);
    const bases = new Map<Name, string>();
    const start = async (name: Name): Promise<void> => {
      bases.set(name, await nodes.start(name));
    };
    const logsOf = (): string => nodes.logs();

    await Promise.all([start('a'), start('b')]);
    await waitFor(async () => {
      const views = await Promise.all(
        (['a', 'b'] as const).map((name) => getJson<ClusterBody>(bases.get(name)!, '/cluster')),
      );
      return views.every((view) => view.quorate && !view.conflict);
    }, 'a and b quorate');
    assert.ok(Date.now() < slotMs, `a and b agreed only after the slot${logsOf()}`);

    // a owns the job: its one scheduled run fails and arms the retry.
    const first = await waitFor(
      () => Promise.resolve(readWitness(mesh.witness).find((firing) => firing.job === 'first')),
      'the first run',
      { timeoutMs: 20_000 },
    );
    assert.equal(first.node, 'a');
    // c joins mid-ladder: the job's owner becomes c before a's retry is due.
    await start('c');
    const retried = await waitFor(
      () => Promise.resolve(readWitness(mesh.witness).find((firing) => firing.job === 'retry')),
      'the resumed retry',
      { timeoutMs: 30_000 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}${logsOf()}`);
    });
    assert.equal(retried.node, 'c', logsOf());
    await nodes
      .get('c')
      .waitForLog(/^Cron job \S+: claimed retry #1 from yacron2-a \(handed off\)$/);
    await nodes
      .get('a')
      .waitForLog(/retry \(#1\) handed off: the cluster moved ownership of it to another node/);
    // The ladder's records: a's pending, its handoff, c's claim and c's launched settle.
    const records = readStoreStream(store, `retries/${job}`);
    assert.deepEqual(
      records.map((data) => [
        data['kind'],
        data['host'] ?? data['fromHost'],
        data['reason'] ?? null,
      ]),
      [
        ['pending', 'yacron2-a', null],
        ['handoff', 'yacron2-a', null],
        ['pending', 'yacron2-c', null],
        ['settled', 'yacron2-c', 'launched'],
      ],
    );
    assert.equal(records[2]?.['claimedFrom'], 'yacron2-a');
    assert.equal(
      readWitness(mesh.witness).filter((firing) => firing.job === 'retry').length,
      1,
      'the retry ran once',
    );
  },
);
