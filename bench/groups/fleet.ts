// Group fleet: what a real mTLS gossip fleet costs each node at rest (worker: cases/fleet.ts, one
// fresh worker per shape, the fleet's daemons its children). Per shape NODESxJOBS, the per-node
// VmRSS at the end of a 30 s window and the daemon's CPU over it in seconds per minute, once the
// fleet has converged and settled 15 s; RssAnon, the spawn helper's RSS and CPU, the leader's
// CPU (it runs the one-second `tick` job) and the spread over nodes beside. Context metrics, no
// targets: bench/fleet-cost.ts runs the same shapes by hand, longer, against other builds or
// the Python reference.
import { FLEET_SHAPES, parseShape, summarize, type FleetResult } from '../lib/fleet.js';
import { metricLine, unmeasured } from '../lib/metric.js';
import { roundAll } from '../lib/stats.js';
import { runFresh, type BenchGroup } from './group.js';

const WINDOW_MS = 30_000;
const SETTLE_MS = 15_000;
const CONVERGE_TIMEOUT_MS = 60_000;
const RSS_UNIT = 'MB';
const CPU_UNIT = 's per node per minute';

export const fleetGroup: BenchGroup = {
  id: 'fleet',
  summary: `real mTLS gossip fleets (${FLEET_SHAPES.join(', ')} nodes x jobs): per-node RSS and idle CPU`,
  metricPrefixes: ['fleet'],
  async run(context) {
    for (const label of FLEET_SHAPES) {
      const shape = parseShape(label);
      const names = { rss: `fleet.rss.${label}`, cpu: `fleet.idle-cpu.${label}` };
      context.progress(`fleet: ${shape.nodes} node(s) x ${shape.jobs} jobs...`);
      const { runs, failures } = await runFresh(context, 'cases/fleet.js', 1, {
        args: () => [
          label,
          String(WINDOW_MS),
          String(SETTLE_MS),
          String(CONVERGE_TIMEOUT_MS),
          context.workDir,
        ],
        timeoutMs: CONVERGE_TIMEOUT_MS + SETTLE_MS + WINDOW_MS + 120_000,
      });
      const sample = runs[0]?.[0];
      const error =
        sample === undefined
          ? (failures[0] ?? 'no samples')
          : typeof sample['error'] === 'string'
            ? sample['error']
            : null;
      if (sample === undefined || error !== null) {
        context.emit(unmeasured(names.rss, RSS_UNIT, null, error ?? 'no samples'));
        context.emit(unmeasured(names.cpu, CPU_UNIT, null, error ?? 'no samples'));
        continue;
      }
      const result = sample as unknown as FleetResult;
      const summary = summarize(result);
      const common = {
        nodes: shape.nodes,
        jobs: shape.jobs,
        leader: result.leader,
        convergeS: summary.convergeS,
        convergedAfterWindow: summary.convergedAfterWindow,
        windowS: summary.windowS,
        loadAvg1mAtWindowEnd: summary.loadAvg1m,
      };
      context.emit(
        metricLine(names.rss, summary.rssMB.median, RSS_UNIT, null, {
          statistic: `median over the nodes of each daemon's VmRSS at the end of a ${WINDOW_MS / 1000} s window (converged, ${SETTLE_MS / 1000} s settled)`,
          min: summary.rssMB.min,
          max: summary.rssMB.max,
          sampledMedianMB: summary.rssSampledMB,
          rssAnonMB: summary.rssAnonMB,
          helperRssMB: summary.helperRssMB,
          helperCommand: summary.helperCommand,
          nodesWithoutHelper: summary.nodesWithoutHelper,
          samples: roundAll(
            result.nodes.map((node) => node.rssKb / 1024),
            1,
          ),
          ...common,
        }),
      );
      context.emit(
        metricLine(names.cpu, summary.cpuSPerMin.median, CPU_UNIT, null, {
          statistic: `median over the nodes of each daemon's utime + stime over a ${WINDOW_MS / 1000} s window, per minute (the spawn helper's apart)`,
          min: summary.cpuSPerMin.min,
          max: summary.cpuSPerMin.max,
          leaderCpuSPerMin: summary.leaderCpuSPerMin,
          helperCpuSPerMin: summary.helperCpuSPerMin,
          samples: roundAll(
            result.nodes.map((node) => node.cpuSPerMin),
            3,
          ),
          ...common,
        }),
      );
    }
  },
};
