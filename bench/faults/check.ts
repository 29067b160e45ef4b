// The checker of a fault run (pure): per scheduled slot of the witness, how many nodes ran each
// job — Leader doubles and skips, lost and doubled retries, catch-up slots run twice or never
// after the full outage — with every Leader double classified against the windows of
// docs/clustering.md "Guarantees and trade-offs" (time since a fault began or ended), and the
// takeover time after each fault that hit the Leader job's runner.
import type { Firing } from '../../test/e2e/cluster-harness.js';
import { nodesPerSecond } from '../lib/soak.js';
import { percentile } from '../lib/stats.js';
import { GOSSIP_CONNECT_TIMEOUT_S } from './cluster.js';
import type { Fault, FaultKind } from './faults.js';

/** About two intervals at interval 1 s, plus 500 ms for a loaded host (bench/cluster-soak.ts). */
export const WINDOW_MS = 2_500;
/** About three intervals after a node is back (the handover), plus the same slack. */
export const HANDOVER_WINDOW_MS = 3_500;

/** How long after a fault began a double is inside its documented window. */
function startWindowMs(fault: Fault): number {
  if (
    fault.kind === 'link-blackhole' ||
    fault.kind === 'store-blackhole' ||
    fault.kind === 'store-oneway'
  ) {
    // A poll into a blackhole fails only at its connect timeout: the leader's view is stale
    // for that long plus one interval.
    return GOSSIP_CONNECT_TIMEOUT_S * 1000 + WINDOW_MS;
  }
  const delayed = / (\d+) ms$/.exec(fault.detail);
  return WINDOW_MS + (delayed === null ? 0 : Number(delayed[1]));
}

export type DoubleClass = 'inside' | 'pause' | 'outside';

export interface SlotDouble {
  readonly second: number;
  readonly nodes: readonly string[];
  readonly class: DoubleClass;
  /** The faults whose window holds the slot, as `kind node +ms`. */
  readonly near: readonly string[];
}

/** Inside a non-pause window, else inside only SIGSTOP/SIGCONT ones, else outside. */
export function classify(
  second: number,
  faults: readonly Fault[],
  skewMs: number,
): { class: DoubleClass; near: string[] } {
  const slotMs = second * 1000;
  const near: { fault: Fault; text: string }[] = [];
  for (const fault of faults) {
    const sinceStart = slotMs - fault.startMs;
    const sinceEnd = slotMs - fault.endMs;
    const slack = 200 + skewMs;
    if (sinceStart >= -slack && sinceStart <= startWindowMs(fault) + skewMs) {
      near.push({ fault, text: `${fault.kind} ${fault.node ?? 'store'} +${sinceStart} ms` });
    } else if (sinceEnd >= -slack && sinceEnd <= HANDOVER_WINDOW_MS + skewMs) {
      near.push({ fault, text: `end of ${fault.kind} ${fault.node ?? 'store'} +${sinceEnd} ms` });
    }
  }
  const texts = near.map((entry) => entry.text);
  if (near.some((entry) => entry.fault.kind !== 'pause' && entry.fault.kind !== 'clock')) {
    return { class: 'inside', near: texts };
  }
  return { class: near.length > 0 ? 'pause' : 'outside', near: texts };
}

const stat = (samples: readonly number[], p: number): number | null =>
  samples.length === 0 ? null : Math.round(percentile(samples, p));

/** Leader faults whose takeover is timed. */
const LEADER_LOSS: readonly FaultKind[] = [
  'kill',
  'term',
  'pause',
  'partition',
  'store-cut',
  'store-oneway',
  'store-blackhole',
];

export interface CheckInput {
  readonly firings: readonly Firing[];
  readonly faults: readonly Fault[];
  readonly firstSecond: number;
  readonly lastSecond: number;
  /** Seconds of the sparse jobs' slots (retry, catch-up). */
  readonly sparseEveryS: number;
  readonly skewMs: number;
}

export function checkSlots(input: CheckInput): {
  leader: {
    slots: number;
    ranOnce: number;
    skips: number;
    doubles: { inside: number; pause: number; outside: number; list: SlotDouble[] };
  };
  preferLeader: { slots: number; skips: number; doubles: number };
  sparseLeaderDoubles: number;
  sparseDoubles: { job: string; second: number; nodes: string[]; near: string[] }[];
  retries: {
    ladders: number;
    retryRuns: number;
    noRetryBeforeNextSlot: number;
  };
  takeoverMs: { samples: number; p50: number | null; p99: number | null; kept: number };
} {
  const { firings, faults, firstSecond, lastSecond } = input;
  const lead = nodesPerSecond(firings, 'lead', firstSecond, lastSecond);
  const list: SlotDouble[] = [];
  let skips = 0;
  for (let second = firstSecond; second <= lastSecond; second++) {
    const nodes = lead.get(second) ?? [];
    if (nodes.length === 0) skips += 1;
    if (nodes.length > 1) {
      list.push({ second, nodes: nodes.sort(), ...classify(second, faults, input.skewMs) });
    }
  }
  const prefer = nodesPerSecond(firings, 'prefer', firstSecond, lastSecond);
  let preferSkips = 0;
  let preferDoubles = 0;
  for (let second = firstSecond; second <= lastSecond; second++) {
    const count = prefer.get(second)?.length ?? 0;
    if (count === 0) preferSkips += 1;
    if (count > 1) preferDoubles += 1;
  }
  // The sparse Leader jobs (catch-up jobs on their schedule) double like `lead` does.
  const sparseDoubles: { job: string; second: number; nodes: string[]; near: string[] }[] = [];
  for (const job of ['once', 'all']) {
    for (const [second, nodes] of nodesPerSecond(firings, job, firstSecond, lastSecond)) {
      if (nodes.length < 2) continue;
      const { near } = classify(second, faults, input.skewMs);
      sparseDoubles.push({ job, second, nodes: nodes.sort(), near });
    }
  }
  // A retry runs about a second after its failed first attempt, before the job's next slot,
  // unless it was deferred (no quorum, the store out of reach), handed off to the new owner, or
  // its node crashed (it resumes at the restart): those run later or never. A retry line has no
  // slot, so the count is per ladder within one slot, and in aggregate over the window.
  const first = nodesPerSecond(firings, 'retry0', firstSecond, lastSecond);
  const retrySeconds = firings
    .filter(
      (firing) =>
        /^retry[1-9]$/.test(firing.job) &&
        firing.second > firstSecond &&
        firing.second < lastSecond + input.sparseEveryS,
    )
    .map((firing) => firing.second);
  let noRetryBeforeNextSlot = 0;
  let ladders = 0;
  for (const [second, nodes] of first) {
    ladders += nodes.length;
    const retries = retrySeconds.filter(
      (at) => at > second && at < second + input.sparseEveryS,
    ).length;
    if (retries === 0) noRetryBeforeNextSlot += 1;
  }
  // Takeover: from a fault on the Leader job's runner to the first slot another node ran.
  const leadSlots = [...lead.entries()].sort((x, y) => x[0] - y[0]);
  const takeovers: number[] = [];
  let kept = 0;
  for (const fault of faults) {
    if (!fault.hitLeader || !LEADER_LOSS.includes(fault.kind)) continue;
    const next = leadSlots.find(
      ([second, nodes]) =>
        second * 1000 > fault.startMs && nodes.some((node) => node !== fault.node),
    );
    const ms = next === undefined ? null : next[0] * 1000 - fault.startMs;
    if (ms === null || ms > 30_000) kept += 1;
    else takeovers.push(ms);
  }
  return {
    leader: {
      slots: lastSecond - firstSecond + 1,
      ranOnce: lastSecond - firstSecond + 1 - skips - list.length,
      skips,
      doubles: {
        inside: list.filter((double) => double.class === 'inside').length,
        pause: list.filter((double) => double.class === 'pause').length,
        outside: list.filter((double) => double.class === 'outside').length,
        list,
      },
    },
    preferLeader: {
      slots: lastSecond - firstSecond + 1,
      skips: preferSkips,
      doubles: preferDoubles,
    },
    sparseLeaderDoubles: sparseDoubles.length,
    sparseDoubles,
    retries: { ladders, retryRuns: retrySeconds.length, noRetryBeforeNextSlot },
    takeoverMs: {
      samples: takeovers.length,
      p50: stat(takeovers, 50),
      p99: stat(takeovers, 99),
      kept,
    },
  };
}

/**
 * The catch-up after a full outage, from the witness lines written after the restart
 * (`<slot> <node> <job> <second it ran>`). The sparse slots from the stop until the first node
 * was up again (`firstUpMs`) fell while no scheduler ran: run-all must run each exactly once,
 * run-once must run a backfill (a line at least 2 s after its slot), one per node whose own
 * downtime owed one (nodes up at different times owe different windows), never one slot twice.
 * A slot that fell while
 * the other nodes were still starting (up to `allUpMs`) belongs to a live scheduler, whose gate
 * may skip it (the cluster converging) or to a backfill of a node that started after it: it may
 * run once or not at all, never twice.
 */
export function checkCatchup(
  afterLines: readonly string[],
  downFromMs: number,
  firstUpMs: number,
  allUpMs: number,
  sparseEveryS: number,
): {
  missedSlots: number[];
  runAll: Record<string, number>;
  startupSlots: Record<string, number>;
  runOnceRuns: number;
  ok: boolean;
} {
  const slotsIn = (fromMs: number, toMs: number): number[] => {
    const slots: number[] = [];
    for (let second = Math.ceil(fromMs / 1000); second * 1000 < toMs; second++) {
      if (second % sparseEveryS === 0) slots.push(second);
    }
    return slots;
  };
  const lines = afterLines.map((line) => line.split(' '));
  const runsOf = (slot: number): number =>
    lines.filter(([second, , job]) => job === 'all' && Number(second) === slot).length;
  const missedSlots = slotsIn(downFromMs, firstUpMs);
  const runAll: Record<string, number> = {};
  for (const slot of missedSlots) runAll[String(slot)] = runsOf(slot);
  const startupSlots: Record<string, number> = {};
  for (const slot of slotsIn(firstUpMs, allUpMs)) startupSlots[String(slot)] = runsOf(slot);
  const onceSlots = lines
    .filter(([second, , job, ranAt]) => {
      const slot = Number(second);
      return (
        job === 'once' &&
        slot * 1000 >= downFromMs - 1000 &&
        slot * 1000 < allUpMs &&
        Number(ranAt) - slot >= 2
      );
    })
    .map(([second]) => second);
  const runOnceRuns = onceSlots.length;
  const ok =
    missedSlots.length > 0 &&
    Object.values(runAll).every((n) => n === 1) &&
    Object.values(startupSlots).every((n) => n <= 1) &&
    runOnceRuns >= 1 &&
    new Set(onceSlots).size === runOnceRuns;
  return { missedSlots, runAll, startupSlots, runOnceRuns, ok };
}

export interface SlotOverlap {
  readonly nodes: readonly [string, string];
  readonly slots: readonly [number, number];
  readonly overlapMs: number;
  /** Faults near the later start, as `kind node +ms`. */
  readonly near: readonly string[];
}

/**
 * The cluster-slot job (Forbid, concurrencyScope cluster): from its `slot-start <ms>` and
 * `slot-end <ms>` witness lines, its runs as intervals per node and slot, and every pair on two
 * nodes that overlapped in time. A run with no end line (its node was killed mid-run, or the run
 * was still going at the end) is taken to last `runMs`.
 */
export function checkClusterSlot(
  rawLines: readonly string[],
  faults: readonly Fault[],
  firstSecond: number,
  lastSecond: number,
  runMs: number,
  sparseEveryS: number,
): { slots: number; runs: number; skips: number; unfinished: number; overlaps: SlotOverlap[] } {
  const runs = new Map<string, { node: string; slot: number; start: number; end: number | null }>();
  for (const line of rawLines) {
    const [second, node, tag, ms] = line.split(' ');
    if ((tag !== 'slot-start' && tag !== 'slot-end') || node === undefined) continue;
    const slot = Number(second);
    if (slot < firstSecond || slot > lastSecond) continue;
    const key = `${node} ${slot}`;
    if (tag === 'slot-start') runs.set(key, { node, slot, start: Number(ms), end: null });
    else {
      const run = runs.get(key);
      if (run !== undefined) run.end = Number(ms);
    }
  }
  const list = [...runs.values()].sort((x, y) => x.start - y.start);
  const overlaps: SlotOverlap[] = [];
  for (let i = 0; i < list.length; i++) {
    const first = list[i]!;
    const firstEnd = first.end ?? first.start + runMs;
    for (let j = i + 1; j < list.length && list[j]!.start < firstEnd; j++) {
      const second = list[j]!;
      if (second.node === first.node) continue;
      const overlapMs = Math.min(firstEnd, second.end ?? second.start + runMs) - second.start;
      const near = faults
        .filter((fault) => fault.startMs <= second.start && fault.endMs >= first.start - 1000)
        .map(
          (fault) => `${fault.kind} ${fault.node ?? 'store'} +${second.start - fault.startMs} ms`,
        );
      overlaps.push({
        nodes: [first.node, second.node],
        slots: [first.slot, second.slot],
        overlapMs,
        near,
      });
    }
  }
  const slotCount =
    Math.floor(lastSecond / sparseEveryS) - Math.ceil(firstSecond / sparseEveryS) + 1;
  const ranSlots = new Set(list.map((run) => run.slot));
  return {
    slots: slotCount,
    runs: list.length,
    skips: slotCount - ranSlots.size,
    unfinished: list.filter((run) => run.end === null).length,
    overlaps,
  };
}
