// The store the Python reference wrote (test/golden/store-reference/), opened by the durable layer
// with the real scheduler on a FakeClock, as a node of host `vm` in the same OS boot: what
// expected.json's `mustSee` lists for the durable features is what this node sees — the runs
// GET /jobs/{name}/runs serves, the pending retry re-armed at its absolute deadline, the @reboot
// markers (no boot run again), the counters seeded, the newest in-flight records (nothing to
// reconcile), the archived output; and the records it then writes are the reference's.
// The per-job digests are the reference's (they come from the fingerprint work); the jobs are
// loaded from the golden config.yaml with the digests the store records, so this test pins the
// record handling, not the fingerprint.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { FakeClock, formatIsoUtc } from '../common/index.js';
import { loadConfig, type ResolvedJob } from '../config/index.js';
import { renderJobRuns } from '../http/index.js';
import { createMetrics, type Metrics } from '../metrics/index.js';
import { FsStateStore } from '../state/index.js';
import { extractGoldenStore, GOLDEN_DIR, type GoldenStore } from '../state/testing.js';
import { recordingLogger } from '../logging/testing.js';
import {
  flush,
  SECOND,
  startDaemon,
  streamData,
  tick,
  until,
  type Daemon,
} from './durable-fixture.test.js';
import type { RunStartedEvent } from '../scheduler/index.js';
import { parseLedgerRun } from './ledger-rows.js';
import { parseInflight, parseRebootMarker } from './records.js';
import { redactSecrets } from './redact.js';
import { parseRetry } from './retry-records.js';
import type { BootInfo } from './types.js';

/** Half an hour after the reference wrote the store: 51.6 s before the pending retry is due. */
const NOW_MS = Date.UTC(2026, 11, 1, 15, 30, 0);

interface MustSee {
  readonly runs: Record<string, Record<string, unknown>[]>;
  readonly pendingRetries: Record<
    string,
    { attempt: number; notBefore: string; jobDigest: string; host: string }
  >;
  readonly newestRetryRecord: Record<string, Record<string, unknown>>;
  readonly rebootMarkers: Record<string, Record<string, unknown>>;
  readonly inflightNewest: Record<string, Record<string, unknown>>;
  readonly counters: Record<string, Record<string, Record<string, number>>>;
  readonly archivedOutput: Record<string, Record<string, unknown>[]>;
  readonly catchup: Record<string, unknown>;
  readonly jobsWithoutRuns: readonly string[];
}

interface Golden {
  readonly golden: GoldenStore;
  readonly mustSee: MustSee;
  readonly bootId: string;
  readonly store: FsStateStore;
  readonly clock: FakeClock;
  readonly jobs: readonly ResolvedJob[];
  readonly dispose: () => Promise<void>;
}

/**
 * The golden config's jobs, as our loader resolves them: each digest must be the one the
 * reference recorded for the job (in its in-flight records and @reboot markers).
 */
async function goldenJobs(golden: GoldenStore): Promise<readonly ResolvedJob[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-golden-config-'));
  try {
    const text = (await readFile(path.join(GOLDEN_DIR, 'config.yaml'), 'utf8'))
      .replace('@STORE@', golden.storePath)
      .replace('@PORT@', '1');
    const file = path.join(dir, 'config.yaml');
    await writeFile(file, text);
    const config = await loadConfig(file);
    const digests = new Map<string, string>();
    for (const [stream, { records }] of Object.entries(golden.expected.records)) {
      const slash = stream.indexOf('/');
      const [family, name] = [stream.slice(0, slash), stream.slice(slash + 1)];
      if (family !== 'inflight' && family !== 'reboot') continue;
      for (const { data } of records) {
        if (typeof data['jobDigest'] === 'string') digests.set(name, data['jobDigest']);
      }
    }
    assert.ok(digests.size > 0);
    for (const [name, digest] of digests) {
      assert.equal(config.jobs.find((job) => job.name === name)?.digest, digest, name);
    }
    return config.jobs;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function openGolden(): Promise<Golden> {
  const golden = await extractGoldenStore();
  const expected = golden.expected as unknown as { mustSee: MustSee; bootId: string };
  const clock = new FakeClock(NOW_MS);
  const store = new FsStateStore(
    { path: golden.storePath, topology: 'single-node' },
    { clock, logger: recordingLogger() },
  );
  await store.open();
  const jobs = await goldenJobs(golden);
  return {
    golden,
    mustSee: expected.mustSee,
    bootId: expected.bootId,
    store,
    clock,
    jobs,
    dispose: async () => {
      await store.close();
      await golden.dispose();
    },
  };
}

type Node = Daemon & { readonly metrics: Metrics };

/** A node of host `vm` over the golden store, in the boot `boot`, its boot sequence run. */
async function bootNode(g: Golden, boot: BootInfo, jobs = g.jobs): Promise<Node> {
  const metrics = createMetrics({ clock: g.clock, config: { jobs, jobSetId: 'v1:test' } });
  const d = startDaemon({
    clock: g.clock,
    store: g.store,
    host: 'vm',
    jobs,
    boot,
    counters: {
      snapshot: () => metrics.snapshotCounters(),
      seed: (snapshot, names) => void metrics.seedCounters(snapshot, names),
    },
    redact: redactSecrets,
  });
  metrics.subscribe(d.scheduler);
  // The boot sequence reads real files: its last step logs the counter seed (this host has a
  // snapshot in the golden store).
  await until(() => d.logged('Prometheus counters continue').length > 0, 'the boot sequence');
  await flush();
  return Object.assign(d, { metrics });
}

const sameBootAsReference = (g: Golden): BootInfo => ({
  bootId: g.bootId,
  bootTimeMs: 1796131666031,
});

void describe('the reference store, read by the durable layer', () => {
  void test('GET /jobs/{name}/runs serves every stored run, newest first as listed', async () => {
    const g = await openGolden();
    try {
      const d = await bootNode(g, sameBootAsReference(g));
      for (const [name, rows] of Object.entries(g.mustSee.runs)) {
        const served = renderJobRuns(name, d.scheduler.getRuns(name)).runs.toReversed();
        assert.deepEqual(
          served,
          rows.map((row) => ({ ...row, resources: null })),
          name,
        );
      }
      for (const name of g.mustSee.jobsWithoutRuns) assert.deepEqual(d.scheduler.getRuns(name), []);
      assert.equal((await d.durable.getTrends('ticker')).runs.length, 3);
      assert.deepEqual(d.logged('rehydrated'), [
        'State store: rehydrated 8 run(s) of history from the ledger',
      ]);
      await d.stop();
    } finally {
      await g.dispose();
    }
  });

  void test('the pending retry is re-armed at its absolute deadline; its launch is settled in the reference shape', async () => {
    const g = await openGolden();
    try {
      const pending = g.mustSee.pendingRetries['flaky']!;
      const newest = parseRetry(g.mustSee.newestRetryRecord['flaky']!);
      assert.deepEqual(newest, {
        kind: 'pending',
        host: pending.host,
        attempt: pending.attempt,
        notBeforeMs: Date.parse(pending.notBefore) + 0.556,
        jobDigest: pending.jobDigest,
        atMs: Date.parse('2026-12-01T14:30:51.609Z') + 0.754,
      });
      const d = await bootNode(g, sameBootAsReference(g));
      assert.deepEqual(d.logged('resuming retry'), [
        'Cron job flaky: resuming retry #1 from the state store in 51.610 seconds',
      ]);
      d.runner.setDefault({ exitCode: 0 });
      await tick(g.clock, 51 * SECOND);
      assert.deepEqual(
        d.of('run:started').filter((event) => event.trigger === 'retry'),
        [],
      );
      await tick(g.clock, SECOND);
      const retries = (): RunStartedEvent[] =>
        d.of('run:started').filter((event) => event.trigger === 'retry');
      // The launch waits for its settle record to land (real file I/O).
      await until(() => retries().length > 0, 'the retry');
      const [retry] = retries();
      assert.equal(retry?.job.name, 'flaky');
      assert.equal(retry?.attempt, 1);
      assert.ok(retry.startedAtMs >= Date.parse(pending.notBefore));
      await until(
        async () => (await streamData(g.store, 'retries/flaky')).length === 2,
        'the settled retry',
      );
      const records = await streamData(g.store, 'retries/flaky');
      assert.deepEqual(records.at(-1), {
        kind: 'settled',
        reason: 'launched',
        host: 'vm',
        attempt: 1,
        at: pending.notBefore, // settled when due, before the launch
      });
      await d.stop();
    } finally {
      await g.dispose();
    }
  });

  void test('the @reboot markers cover this boot: no boot run again, and no marker written', async () => {
    const g = await openGolden();
    try {
      for (const [name, marker] of Object.entries(g.mustSee.rebootMarkers)) {
        const [newest] = await g.store.list(`reboot/${name}`, { limit: 1 });
        assert.deepEqual(parseRebootMarker(newest!.data), {
          host: marker['host'],
          bootId: marker['bootId'],
          bootTimeMs: (marker['bootTime'] as number) * 1000,
          jobDigest: marker['jobDigest'],
        });
      }
      const d = await bootNode(g, sameBootAsReference(g));
      const rebootJobs = g.jobs
        .filter((job) => job.schedule.kind === 'reboot')
        .map((job) => job.name);
      assert.deepEqual(
        d
          .of('fire:skipped')
          .map((event) => [event.jobName, event.reason])
          .sort(),
        rebootJobs.map((name) => [name, 'ran-this-boot']).sort(),
      );
      assert.deepEqual(d.of('run:started'), []);
      for (const name of rebootJobs) {
        assert.equal((await streamData(g.store, `reboot/${name}`)).length, 1, name);
      }
      await d.stop();
    } finally {
      await g.dispose();
    }
  });

  void test('in another OS boot the @reboot jobs run again and the pending retry is superseded by the reboot', async () => {
    const g = await openGolden();
    try {
      const d = await bootNode(g, { bootId: 'another-boot', bootTimeMs: NOW_MS - 60_000 });
      const rebootJobs = g.jobs
        .filter((job) => job.schedule.kind === 'reboot')
        .map((job) => job.name);
      assert.deepEqual(
        d
          .of('run:started')
          .map((event) => event.job.name)
          .sort(),
        [...rebootJobs].sort(),
      );
      // The settle is written by the @reboot launch's own store write: on a loaded machine it can
      // land after the boot sequence's last log line.
      await until(
        async () => (await streamData(g.store, 'retries/flaky')).at(-1)?.['kind'] === 'settled',
        'the superseded retry settled',
      );
      assert.deepEqual((await streamData(g.store, 'retries/flaky')).at(-1), {
        kind: 'settled',
        reason: 'superseded-by-reboot',
        host: 'vm',
        attempt: 1,
        at: formatIsoUtc(NOW_MS),
      });
      const [marker] = await g.store.list('reboot/flaky', { limit: 1 });
      assert.deepEqual(marker?.data, {
        host: 'vm',
        bootId: 'another-boot',
        bootTime: (NOW_MS - 60_000) / 1000,
        jobDigest: g.jobs.find((job) => job.name === 'flaky')!.digest,
        at: formatIsoUtc(NOW_MS),
      });
      await d.stop();
    } finally {
      await g.dispose();
    }
  });

  void test("the counters continue from the newest snapshot of this host; the next snapshot is the reference's", async () => {
    const g = await openGolden();
    try {
      const d = await bootNode(g, sameBootAsReference(g));
      const scrape = (await d.metrics.render()).body;
      for (const [name, runs] of Object.entries(g.mustSee.counters['vm']!)) {
        for (const status of ['success', 'failure', 'cancelled']) {
          const sample = `yacron2_job_runs_total{job_name="${name}",status="${status}"} ${runs[status] ?? 0}`;
          assert.ok(scrape.includes(sample), sample);
        }
      }
      assert.ok(
        scrape.includes('yacron2_job_duration_seconds_bucket{job_name="ticker",le="0.1"} 2'),
      );
      await d.stop();
      // The stop's drain is bounded on the FakeClock; the real file write may still be landing.
      await d.writes.drain();
      // The final snapshot at shutdown holds exactly the accumulators the reference stored.
      const snapshots = await streamData(g.store, 'counters/vm');
      assert.equal(snapshots.length, 3);
      const [, theirs, ours] = snapshots;
      assert.deepEqual(ours?.['jobs'], theirs?.['jobs']);
      assert.deepEqual(ours?.['buckets'], theirs?.['buckets']);
      assert.ok(String(ours?.['at']) >= formatIsoUtc(NOW_MS), String(ours?.['at']));
    } finally {
      await g.dispose();
    }
  });

  void test('the newest in-flight records are closed: nothing is reconciled', async () => {
    const g = await openGolden();
    try {
      for (const [name, record] of Object.entries(g.mustSee.inflightNewest)) {
        const [newest] = await g.store.list(`inflight/${name}`, { limit: 1 });
        assert.deepEqual(newest?.data, record, name);
        assert.deepEqual(parseInflight(newest.data), {
          kind: 'closed',
          host: record['host'],
          proc: record['proc'],
          reason: record['reason'],
        });
      }
      const before = await Promise.all(
        Object.keys(g.mustSee.inflightNewest).map((name) =>
          streamData(g.store, `inflight/${name}`),
        ),
      );
      const d = await bootNode(g, sameBootAsReference(g));
      const after = await Promise.all(
        Object.keys(g.mustSee.inflightNewest).map((name) =>
          streamData(g.store, `inflight/${name}`),
        ),
      );
      assert.deepEqual(after, before);
      assert.deepEqual(d.logged('never finished'), []);
      await d.stop();
    } finally {
      await g.dispose();
    }
  });

  void test('the archived output reads back; the same output archived here is the same record', async () => {
    const g = await openGolden();
    try {
      const [want] = g.mustSee.archivedOutput['archiver']!;
      const [stored] = await streamData(g.store, 'logs/archiver');
      assert.deepEqual(
        { ...stored, exit_code: undefined, dropped_lines: undefined },
        { ...want, exit_code: undefined, dropped_lines: undefined },
      );
      const d = await bootNode(g, sameBootAsReference(g));
      d.runner.setDefault('manual');
      await d.scheduler.startJob('archiver');
      await flush();
      const run = d.runner.last('archiver');
      for (const line of [
        'archiving 3 files\n',
        'API_TOKEN=abc123supersecret\n',
        'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig\n',
        'done\n',
      ]) {
        run.emitOutput('stdout', line);
      }
      run.succeed();
      await until(
        async () => (await streamData(g.store, 'logs/archiver')).length === 2,
        'the archive write',
      );
      const records = await streamData(g.store, 'logs/archiver');
      const finished = d.of('run:finished')[0]!;
      assert.deepEqual(records[1], {
        ...stored,
        finished_at: formatIsoUtc(finished.outcome.finishedAtMs),
      });
      assert.deepEqual(g.mustSee.catchup, {});
      assert.deepEqual(await g.store.listStreams('catchup/'), []);
      await d.stop();
    } finally {
      await g.dispose();
    }
  });

  void test('every stored run row parses as the reference reads it', async () => {
    const g = await openGolden();
    try {
      for (const [name, rows] of Object.entries(g.mustSee.runs)) {
        const stored = await streamData(g.store, `runs/${name}`);
        assert.deepEqual(
          stored.toReversed().map((data) => parseLedgerRun(data)?.summary.outcome),
          rows.map((row) => row['outcome']),
        );
      }
    } finally {
      await g.dispose();
    }
  });
});
