// Helpers (no tests here) for the full-outage catch-up e2e tests of a cluster on one shared state
// store (docs/durable-state.md "Missed-run catch-up"), whatever elects its leader (gossip, etcd,
// a lease directory): a `Leader` job with `onMissed` whose first slot runs while the cluster is
// up and whose later slots pass while every node is down, then the restart and what must follow
// it — each missed slot backfilled once, on one node, the catch-up checkpoint closed. The test
// brings its own election (configs, "ready", how the nodes go down) and composes these steps.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { NodeDaemons, readWitness, waitFor, type Firing } from './cluster-harness.js';
import {
  backfilledSlots,
  readStoreStream,
  secondsSchedule,
  shellQuote,
  waitForInstant,
  type StoreRecord,
  type TeardownContext,
} from './harness.js';

export const CATCHUP_JOB = 'nightly';

export interface OutagePlan<Name extends string> {
  readonly t: TeardownContext;
  readonly dir: string;
  readonly names: readonly Name[];
  readonly witness: string;
  readonly onMissed: 'run-once' | 'run-all';
  /** How far ahead the first slot is (the cluster must agree on a leader before it). */
  readonly leadMs: number;
  /** The missed slots, after the first one (the cluster is down by then). */
  readonly missedAfterMs: readonly number[];
}

export class CatchupOutage<Name extends string> {
  readonly nodes: NodeDaemons<Name>;
  readonly store: string;
  readonly firstMs: number;
  readonly missed: readonly number[];

  constructor(readonly plan: OutagePlan<Name>) {
    this.nodes = new NodeDaemons<Name>(plan.t, plan.dir);
    this.store = join(plan.dir, 'store');
    this.firstMs = Math.ceil((Date.now() + plan.leadMs) / 1000) * 1000;
    this.missed = plan.missedAfterMs.map((afterMs) => this.firstMs + afterMs);
  }

  /** The job (list items), writing `<epoch second> <node> nightly` to the witness. */
  get jobs(): string {
    return (
      `  - name: ${CATCHUP_JOB}\n` +
      `    command: echo "$(date +%s) $YC_NODE ${CATCHUP_JOB}" >> ${shellQuote(this.plan.witness)}\n` +
      `    schedule: "${secondsSchedule([this.firstMs, ...this.missed])}"\n` +
      `    clusterPolicy: Leader\n` +
      `    onMissed: ${this.plan.onMissed}\n` +
      `    captureStderr: false\n`
    );
  }

  /** The shared store every node uses (YAML). */
  get sections(): string {
    return `state:\n  path: ${this.store}\n  topology: shared\n`;
  }

  firings(): Firing[] {
    return readWitness(this.plan.witness).filter((firing) => firing.job === CATCHUP_JOB);
  }

  /** Start every node; resolves with their control API base URLs. */
  startAll(): Promise<string[]> {
    return Promise.all(this.plan.names.map((name) => this.nodes.start(name)));
  }

  /** After "ready": the first slot runs once (and lands in the ledger); returns its node. */
  async firstRun(): Promise<string> {
    assert.ok(
      Date.now() < this.firstMs,
      `the cluster was ready only after the first slot${this.nodes.logs()}`,
    );
    await waitFor(
      () => Promise.resolve(readStoreStream(this.store, `runs/${CATCHUP_JOB}`).length === 1),
      'the first run in the ledger',
      { timeoutMs: 30_000 },
    );
    assert.equal(this.firings().length, 1);
    assert.ok(
      Date.now() < this.missed[0]! - 1000,
      `the first run landed too late to take the cluster down before the missed slots`,
    );
    return this.firings()[0]!.node;
  }

  /** Every node still running, stopped gracefully. */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.nodes.daemons.values()].filter((d) => d.running).map((d) => d.stop()),
    );
  }

  /** Wait (real time: the downtime the scenario is made of) until the last missed slot is past. */
  async waitOutMissedSlots(): Promise<void> {
    await waitForInstant(this.missed.at(-1)! + 500);
  }

  /**
   * After the restart: every missed slot the policy owes is backfilled exactly once, all on one
   * node, and the checkpoints are one cycle ending in a close. Returns the backfill firings.
   */
  async backfilled(timeoutMs: number): Promise<Firing[]> {
    const owed = this.plan.onMissed === 'run-all' ? this.missed : this.missed.slice(-1);
    await waitFor(() => Promise.resolve(this.firings().length >= 1 + owed.length), 'the backfill', {
      timeoutMs,
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}${this.nodes.logs()}`);
    });
    const checkpoints = await waitFor(
      () => {
        const rows = readStoreStream(this.store, `catchup/${CATCHUP_JOB}`);
        return Promise.resolve(rows.at(-1)?.['kind'] === 'close' ? rows : undefined);
      },
      'the closed checkpoint',
      { timeoutMs: 20_000 },
    );
    assert.deepEqual(
      checkpoints.map((row: StoreRecord) => row['kind']),
      [...owed.map(() => 'open'), 'close'],
      'one cycle, written by the node that backfilled alone',
    );
    assert.deepEqual(backfilledSlots(checkpoints), owed, 'each owed slot backfilled, in order');
    const backfills = this.firings().slice(1);
    assert.equal(
      backfills.length,
      owed.length,
      `a slot was backfilled more than once${this.nodes.logs()}`,
    );
    assert.equal(new Set(backfills.map((f) => f.node)).size, 1, 'all on one node');
    assert.ok(this.plan.names.some((name) => name === backfills[0]!.node));
    return backfills;
  }

  /**
   * Every node but the backfiller reaches its catch-up and waits for the gate (it follows), and
   * still nothing ran twice. Returns the nodes that waited (the backfiller too, when it did).
   */
  async followersWaited(backfills: readonly Firing[]): Promise<Name[]> {
    const followers = this.plan.names.filter((name) => name !== backfills[0]!.node);
    await waitFor(
      () => Promise.resolve(followers.every((name) => this.waitedNodes().includes(name))),
      'every follower waiting for the gate',
      { timeoutMs: 30_000 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}${this.nodes.logs()}`);
    });
    assert.equal(this.firings().length, 1 + backfills.length, 'a follower backfilled too');
    return this.waitedNodes();
  }

  /** The nodes whose catch-up waited for the gate (logged once each). */
  waitedNodes(): Name[] {
    return [...this.nodes.daemons.entries()]
      .filter(([, daemon]) => daemon.logs().some((r) => /missed-run catch-up waits/.test(r.msg)))
      .map(([name]) => name);
  }
}
