// Group cluster: the cluster gate on the scheduling path and the gossip round (worker:
// cases/cluster.ts, one fresh process). A 7-node mesh in one process over the in-memory network:
// the time node 0 needs to decide 1,000 distinct Leader jobs (cold: every rendezvous score
// computed; warm: memoised), in spread and single-leader mode; one round of all 7 nodes with 512
// job summaries each; serving and parsing one such /peer body. Context metrics, no targets.
import { metricLine, unmeasured } from '../lib/metric.js';
import { median, round, roundAll } from '../lib/stats.js';
import { numberField, runFresh, type BenchGroup } from './group.js';

const REPETITIONS = 5;

export const clusterGroup: BenchGroup = {
  id: 'cluster',
  summary: 'cluster gate verdicts for 1,000 jobs, a 7-node gossip round, /peer serve and parse',
  metricPrefixes: ['cluster'],
  async run(context) {
    const { runs, failures } = await runFresh(context, 'cases/cluster.js', 1, {
      args: () => [String(REPETITIONS)],
      timeoutMs: 120_000,
    });
    const samples = runs[0] ?? [];
    const emit = (name: string, values: number[], unit: string, what: string): void => {
      if (values.length === 0) {
        context.emit(unmeasured(name, unit, null, failures[0] ?? 'no samples'));
        return;
      }
      context.emit(
        metricLine(name, round(median(values), 3), unit, null, {
          statistic: `median of ${values.length} repetitions: ${what}`,
          samples: roundAll(values, 3),
        }),
      );
    };
    for (const distribution of ['spread', 'single-leader']) {
      const verdicts = samples.filter(
        (sample) => sample['kind'] === 'verdicts' && sample['distribution'] === distribution,
      );
      emit(
        `cluster.verdicts-1000.${distribution}.cold`,
        verdicts.map((sample) => numberField(sample, 'coldMs')),
        'ms',
        'node 0 of a converged 7-node mesh decides 1,000 distinct Leader jobs, first time',
      );
      emit(
        `cluster.verdicts-1000.${distribution}.warm`,
        verdicts.map((sample) => numberField(sample, 'warmMs')),
        'ms',
        'the same 1,000 decisions again',
      );
    }
    emit(
      'cluster.verdicts-1000.election-off',
      samples
        .filter((sample) => sample['kind'] === 'election-off')
        .map((sample) => numberField(sample, 'offMs')),
      'ms',
      "1,000 decisions of the scheduler's gate 2 as the daemon builds it without a cluster section (after one warm-up pass)",
    );
    const rounds = samples.filter((sample) => sample['kind'] === 'round');
    emit(
      'cluster.round.7-nodes-512-jobs',
      rounds.map((s) => numberField(s, 'roundMs')),
      'ms',
      'one round of every node (42 polls, in-memory transport)',
    );
    emit(
      'cluster.peer-serve.512-jobs',
      rounds.map((s) => numberField(s, 'serveMs')),
      'ms',
      'one GET /peer answer: payload, ETag, JSON',
    );
    emit(
      'cluster.peer-parse.512-jobs',
      rounds.map((s) => numberField(s, 'parseMs')),
      'ms',
      'one /peer body validated by a poller',
    );
  },
};
