// Every durable record kind we write, checked by the independent reader
// (state/test-reference-reader.ts) against the reference's field lists and JSON types, written
// here from the format description (docs/durable-state-store.md "Record bodies"): the exact set
// of fields, ints as JSON ints, floats as floats (`2.0`, never `2`), ISO instants as Python's
// isoformat of UTC (`+00:00`, six fraction digits or none when the microsecond is 0), digests as
// 64 hex, process tokens as 12 hex. The records come from two daemon processes over one real
// FsStateStore: the first runs, fails, retries, archives and is killed mid-run; the second
// reconciles, catches up, re-arms and shuts down; the kinds nothing produces yet (handoff, slot
// cancel) are written by their renderers.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { FakeClock } from '../common/index.js';
import type { ResolvedJob } from '../config/index.js';
import { makeJob } from '../config/testing.js';
import { createMetrics } from '../metrics/index.js';
import { FsStateStore } from '../state/index.js';
import { filesUnder, readReferenceJson, RECORD_NAME, type Node } from '../state/testing.js';
import { recordingLogger } from '../logging/testing.js';
import {
  HOUR,
  MINUTE,
  newProcess,
  SECOND,
  startDaemon,
  streamData,
  T0,
  tick,
  until,
  type Daemon,
} from './durable-fixture.test.js';
import { concurrencyCancelData } from './records.js';
import { handoffData } from './retry-records.js';

// ---- the field lists, from the format description ------------------------------------------------

type Rule =
  | 'int'
  | 'float'
  | 'iso'
  | 'iso-or-empty'
  | 'str'
  | 'bool'
  | 'null'
  | 'proc'
  | 'digest'
  | { readonly oneOf: readonly string[] }
  | { readonly either: readonly Rule[] }
  | { readonly list: Rule }
  | { readonly map: Rule }
  | Shape;

interface Shape {
  readonly fields: Readonly<Record<string, Rule>>;
  readonly optional?: Readonly<Record<string, Rule>>;
}

const nullable = (rule: Rule): Rule => ({ either: [rule, 'null'] });

const OUTCOME = { oneOf: ['success', 'failure', 'cancelled', 'unknown'] };
const RUN_ROW: Shape = {
  fields: {
    outcome: OUTCOME,
    exit_code: nullable('int'),
    started_at: nullable('iso'),
    finished_at: 'iso',
    duration: nullable('float'),
    fail_reason: nullable('str'),
    resources: nullable({
      fields: {
        cpu_user_seconds: 'float',
        cpu_system_seconds: 'float',
        cpu_total_seconds: 'float',
        max_rss_bytes: 'int',
        samples: 'int',
      },
      optional: { series: { list: { list: 'float' } } },
    }),
  },
};
const RECONCILED_BASE = {
  outcome: { oneOf: ['unknown'] },
  exit_code: 'null',
  started_at: 'null',
  duration: 'null',
  fail_reason: 'str',
} as const;
const RECONCILED_SKIP: Shape = { fields: { ...RECONCILED_BASE, finished_at: 'iso' } };
const RECONCILED_OWED: Shape = { fields: { ...RECONCILED_BASE, interruptedAt: 'iso' } };
const LOG: Shape = {
  fields: {
    finished_at: 'iso',
    outcome: OUTCOME,
    exit_code: nullable('int'),
    redacted: 'bool',
    dropped_lines: 'int',
    lines: { list: { fields: { stream: { oneOf: ['stdout', 'stderr'] }, line: 'str' } } },
  },
};
const CATCHUP: Shape = {
  fields: { kind: { oneOf: ['open', 'close'] }, watermark: 'iso-or-empty', at: 'iso' },
  // Our addition to an `open` (readers ignore unknown fields): the end of its owed window.
  optional: { until: 'iso' },
};
const PENDING: Shape = {
  fields: {
    kind: { oneOf: ['pending'] },
    attempt: 'int',
    notBefore: 'iso',
    jobDigest: 'digest',
    host: 'str',
    at: 'iso',
  },
  optional: { claimedFrom: 'str' },
};
const SETTLED: Shape = {
  fields: {
    kind: { oneOf: ['settled'] },
    reason: {
      oneOf: [
        'launched',
        'succeeded',
        'superseded',
        'superseded-by-run',
        'superseded-by-reboot',
        'cancelled',
        'exhausted',
        'config-changed',
        'deadline-passed',
        'disabled',
        'invalid-record',
        'job-removed',
        'owner-moved',
      ],
    },
    host: 'str',
    at: 'iso',
  },
  optional: { attempt: 'int' },
};
const HANDOFF: Shape = {
  fields: {
    kind: { oneOf: ['handoff'] },
    attempt: 'int',
    notBefore: 'iso',
    jobDigest: 'digest',
    fromHost: 'str',
    at: 'iso',
    armedAt: 'iso',
  },
};
const REBOOT: Shape = {
  fields: {
    host: 'str',
    bootId: nullable('str'),
    bootTime: nullable('float'),
    jobDigest: 'digest',
    at: 'iso',
  },
};
const INFLIGHT_OPEN: Shape = {
  fields: {
    kind: { oneOf: ['open'] },
    host: 'str',
    proc: 'proc',
    pid: nullable('int'),
    startedAt: 'iso',
    jobDigest: 'digest',
  },
};
const INFLIGHT_CLOSED: Shape = {
  fields: {
    kind: { oneOf: ['closed'] },
    host: 'str',
    proc: 'proc',
    reason: { oneOf: ['finished', 'reconciled-crash', 'reconciled-takeover'] },
    at: 'iso',
  },
};
const SLOT_CANCEL: Shape = {
  fields: { kind: { oneOf: ['cancel'] }, fence: 'int', by: 'str', at: 'iso' },
};
const COUNTERS: Shape = {
  fields: {
    at: 'iso',
    buckets: { list: 'float' },
    jobs: {
      map: {
        fields: {
          runs: { map: 'int' },
          retries: 'int',
          permanent_failures: 'int',
          start_failures: 'int',
          duration_sum: 'float',
          duration_count: 'int',
          bucket_counts: { list: 'int' },
          last_success_time: nullable('float'),
          last_failure_time: nullable('float'),
          cpu_user_sum: 'float',
          cpu_system_sum: 'float',
          cpu_count: 'int',
          max_rss_observed: 'int',
        },
      },
    },
  },
};
const META: Shape = { fields: { storeVersion: { oneOf: ['v1'] } } };

/** The shape a record of `stream` must have, picked by its stream family and fields. */
function shapeOf(stream: string, data: Node): { kind: string; shape: Shape } {
  const family = stream.includes('/') ? stream.slice(0, stream.indexOf('/')) : stream;
  const has = (name: string): boolean =>
    data.kind === 'object' && data.entries.some(([key]) => key === name);
  const kind = (): string => {
    const found = data.kind === 'object' ? data.entries.find(([key]) => key === 'kind') : undefined;
    return found?.[1].kind === 'string' ? found[1].value : '';
  };
  switch (family) {
    case 'runs':
      if (has('interruptedAt')) return { kind: 'runs reconciled (owed)', shape: RECONCILED_OWED };
      if (!has('resources')) return { kind: 'runs reconciled (skip)', shape: RECONCILED_SKIP };
      return { kind: 'runs', shape: RUN_ROW };
    case 'logs':
      return { kind: 'logs', shape: LOG };
    case 'catchup':
      return { kind: `catchup ${kind()}`, shape: CATCHUP };
    case 'retries': {
      const shapes: Record<string, Shape> = {
        pending: PENDING,
        settled: SETTLED,
        handoff: HANDOFF,
      };
      return { kind: `retries ${kind()}`, shape: shapes[kind()] ?? { fields: { kind: 'null' } } };
    }
    case 'reboot':
      return { kind: 'reboot', shape: REBOOT };
    case 'inflight':
      return {
        kind: `inflight ${kind()}`,
        shape: kind() === 'open' ? INFLIGHT_OPEN : INFLIGHT_CLOSED,
      };
    case 'slots':
      return { kind: 'slots cancel', shape: SLOT_CANCEL };
    case 'counters':
      return { kind: 'counters', shape: COUNTERS };
    case 'meta':
      return { kind: 'meta', shape: META };
    default:
      throw new Error(`a record of an unexpected stream: ${stream}`);
  }
}

/** isoformat() of an aware UTC datetime: no `.000000`, the fraction only when non-zero. */
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(?!000000)\d{6})?\+00:00$/;

/** Why `node` does not follow `rule`, or null. */
function mismatch(node: Node, rule: Rule, at: string): string | null {
  const fail = (want: string): string => `${at}: ${want} expected, got ${JSON.stringify(node)}`;
  const text = node.kind === 'string' ? node.value : undefined;
  if (typeof rule === 'string') {
    switch (rule) {
      case 'int':
        return node.kind === 'int' ? null : fail('a JSON int');
      case 'float':
        return node.kind === 'float' ? null : fail('a JSON float');
      case 'iso':
        return text !== undefined && ISO.test(text) ? null : fail('an isoformat UTC instant');
      case 'iso-or-empty':
        return text === '' || (text !== undefined && ISO.test(text)) ? null : fail('ISO or ""');
      case 'str':
        return text !== undefined ? null : fail('a string');
      case 'bool':
        return node.kind === 'literal' && typeof node.value === 'boolean' ? null : fail('a bool');
      case 'null':
        return node.kind === 'literal' && node.value === null ? null : fail('null');
      case 'proc':
        return text !== undefined && /^[0-9a-f]{12}$/.test(text) ? null : fail('12 hex');
      case 'digest':
        return text !== undefined && /^[0-9a-f]{64}$/.test(text) ? null : fail('64 hex');
    }
  }
  if ('oneOf' in rule) {
    return text !== undefined && rule.oneOf.includes(text) ? null : fail(rule.oneOf.join('|'));
  }
  if ('either' in rule) {
    const reasons = rule.either.map((option) => mismatch(node, option, at));
    return reasons.includes(null) ? null : reasons.join(' / ');
  }
  if ('list' in rule) {
    if (node.kind !== 'array') return fail('a list');
    for (const [index, item] of node.items.entries()) {
      const reason = mismatch(item, rule.list, `${at}[${index}]`);
      if (reason !== null) return reason;
    }
    return null;
  }
  if (node.kind !== 'object') return fail('an object');
  if ('map' in rule) {
    for (const [key, value] of node.entries) {
      const reason = mismatch(value, rule.map, `${at}.${key}`);
      if (reason !== null) return reason;
    }
    return null;
  }
  const keys = node.entries.map(([key]) => key);
  const missing = Object.keys(rule.fields).filter((key) => !keys.includes(key));
  const extra = keys.filter((key) => !(key in rule.fields) && !(key in (rule.optional ?? {})));
  if (missing.length > 0 || extra.length > 0) {
    return `${at}: fields missing [${missing.join(', ')}], extra [${extra.join(', ')}]`;
  }
  for (const [key, value] of node.entries) {
    const reason = mismatch(
      value,
      rule.fields[key] ?? rule.optional?.[key] ?? 'null',
      `${at}.${key}`,
    );
    if (reason !== null) return reason;
  }
  return null;
}

// ---- the scenario ---------------------------------------------------------------------------------

const HOST = 'node-1';
const BOOT = { bootId: '12785c6d-6d3c-4234-b74d-8f68794978c4', bootTimeMs: T0 - 3 * HOUR + 31 };

function jobs(): ResolvedJob[] {
  return [
    makeJob({ name: 'report', schedule: '0 * * * *', onMissed: 'run-all' }),
    makeJob({
      name: 'flaky',
      schedule: '30 0 * * *',
      retry: {
        maximumRetries: 3,
        initialDelayMs: MINUTE,
        backoffMultiplier: 2,
        maximumDelayMs: HOUR,
      },
    }),
    makeJob({ name: 'dump', schedule: '0 0 1 1 * 2099', captureStdout: true, archiveOutput: true }),
    makeJob({ name: 'warm', schedule: '@reboot' }),
    makeJob({ name: 'worker', schedule: '0 0 1 1 * 2099' }),
    makeJob({ name: 'owed', schedule: '0 0 1 1 * 2099', onMissed: 'run-once' }),
  ];
}

function node(clock: FakeClock, store: FsStateStore, token: string): Daemon {
  const config = jobs();
  const metrics = createMetrics({ clock, config: { jobs: config, jobSetId: 'v1:test' } });
  const d = startDaemon({
    clock,
    store,
    host: HOST,
    jobs: config,
    boot: BOOT,
    process: newProcess(token),
    counters: {
      snapshot: () => metrics.snapshotCounters(),
      seed: (snapshot, names) => void metrics.seedCounters(snapshot, names),
    },
  });
  metrics.subscribe(d.scheduler);
  return d;
}

void test("every durable record kind we write has the reference's fields, JSON types and instant shapes", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'yacron2-reference-records-'));
  // The store's own clock stays put: names order by sequence, which is write order.
  const store = new FsStateStore(
    { path: dir, topology: 'single-node' },
    { clock: new FakeClock(T0), logger: recordingLogger() },
  );
  await store.open();
  try {
    // The first process: runs, a failing job's retries, an archive, a boot run, and two runs
    // still going when it is killed.
    const clockA = new FakeClock(T0);
    const a = node(clockA, store, 'aaaaaaaaaaaa');
    await until(() => a.runner.runsOf('warm').length > 0, 'the boot run');
    a.runner.script('report', { exitCode: 0, durationMs: 2 * SECOND });
    a.runner.script('flaky', { exitCode: 1, durationMs: 1500 }, { exitCode: 2 });
    a.runner.last('warm').succeed();
    await a.scheduler.startJob('dump');
    const dump = a.runner.last('dump');
    dump.emitOutput('stdout', 'PASSWORD=hunter2\n');
    dump.emitOutput('stderr', 'warning\n');
    dump.emitOutput('stdout', 'done');
    dump.succeed();
    await tick(clockA, HOUR);
    await a.scheduler.startJob('worker');
    await a.scheduler.startJob('owed');
    await tick(clockA, 31 * MINUTE + 2 * SECOND);
    await until(() => a.writes.pending === 0, 'the first process writes');
    // Killed: its clock never moves again, its runs never finish.

    // The second process, two hours later: reconciles, catches up, re-arms, shuts down.
    const clockB = new FakeClock(T0 + 3 * HOUR + 10 * MINUTE);
    const b = node(clockB, store, 'bbbbbbbbbbbb');
    b.runner.setDefault({ exitCode: 0 });
    // worker's and owed's runs are reconciled. (flaky's second retry may be one too: whether it
    // launched before the kill depends on when its real settle write landed on the FakeClock.)
    await until(
      () =>
        ['worker', 'owed'].every(
          (name) => b.logged(`Job ${name}: the run started at`).length === 1,
        ),
      'the reconciliation',
    );
    // report's catch-up starts after a real read of its watermark: the FakeClock must not run
    // ahead of it (its backfill runs would otherwise never see their clock move).
    await until(() => b.logged('Job report: catching up').length === 1, "report's catch-up");
    await tick(clockB, 30 * MINUTE);
    await until(
      async () =>
        (await streamData(store, 'catchup/report')).some((data) => data['kind'] === 'close'),
      "report's catch-up closed",
    );
    await b.stop();
    // The stop's drain is bounded on the FakeClock; the real file writes may still be landing.
    await b.writes.drain();
    await store.append(
      'retries/flaky',
      handoffData({
        attempt: 2,
        notBeforeMs: T0 + 4 * HOUR,
        jobDigest: jobs()[1]!.digest,
        fromHost: HOST,
        atMs: T0 + 4 * HOUR,
        armedAtMs: T0 + HOUR + 31 * MINUTE + 1500,
      }),
    );
    await store.append(
      'slots/report',
      concurrencyCancelData({
        kind: 'cancel',
        fence: 7,
        by: HOST,
        atMs: T0 + 4 * HOUR + 250,
      }),
    );

    // Every record file, read back by the independent reader.
    const root = path.join(dir, 'default');
    const seen = new Map<string, number>();
    for (const token of await readdir(path.join(root, 'records'))) {
      const stream = decodeURIComponent(token);
      for (const name of await readdir(path.join(root, 'records', token))) {
        assert.match(name, RECORD_NAME, `${stream}/${name}`);
        const envelope = readReferenceJson(
          await readFile(path.join(root, 'records', token, name), 'utf8'),
        );
        assert.equal(envelope.kind, 'object');
        const data =
          envelope.kind === 'object'
            ? envelope.entries.find(([key]) => key === 'data')?.[1]
            : undefined;
        assert.ok(data, `${stream}/${name}: no data`);
        const { kind, shape } = shapeOf(stream, data);
        assert.equal(mismatch(data, shape, `${stream}/${name}`), null);
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
      }
    }
    assert.deepEqual([...seen.keys()].sort(), [
      'catchup close',
      'catchup open',
      'counters',
      'inflight closed',
      'inflight open',
      'logs',
      'meta',
      'reboot',
      'retries handoff',
      'retries pending',
      'retries settled',
      'runs',
      'runs reconciled (owed)',
      'runs reconciled (skip)',
      'slots cancel',
    ]);
    // Nothing else in the store's tree but those records, its documents and temp-free dirs.
    assert.deepEqual(
      (await filesUnder(root)).filter(
        (file) => !file.startsWith('records/') && !file.endsWith('/'),
      ),
      [],
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
