// Group next-fire: nextFireTime() throughput per zone and expression (worker cases/next-fire.ts).
import { metricLine, unmeasured, type Target } from '../lib/metric.js';
import { max, median, min, round, roundAll } from '../lib/stats.js';
import { runFresh, type BenchGroup } from './group.js';

/** Issue target: >= 500k computations/s in a DST zone (the Python reference: ~106k/s). */
const DST_ZONE_TARGET: Target = { op: '>=', value: 500_000 };
const REPETITIONS = 7;
const WINDOW_MS = 150;

export const nextFireGroup: BenchGroup = {
  id: 'next-fire',
  summary: 'nextFireTime() computations per second, chained, UTC and America/New_York',
  metricPrefixes: ['next-fire'],
  async run(context) {
    const { runs, failures } = await runFresh(context, 'cases/next-fire.js', 1, {
      args: () => [String(REPETITIONS), String(WINDOW_MS)],
      timeoutMs: 120_000,
    });
    const samples = runs[0] ?? [];
    if (samples.length === 0) {
      for (const zone of ['utc', 'new-york']) {
        const target = zone === 'new-york' ? DST_ZONE_TARGET : null;
        context.emit(
          unmeasured(`next-fire.${zone}`, 'computations/s', target, failures[0] ?? 'no samples'),
        );
      }
      return;
    }
    // Mixed (headline) lines first, then the per-expression breakdown.
    const ordered = [...samples].sort(
      (a, b) => Number(b['slug'] === 'mixed') - Number(a['slug'] === 'mixed'),
    );
    for (const sample of ordered) {
      const zone = String(sample['zone']);
      const slug = String(sample['slug']);
      const rates = (sample['rates'] as number[] | undefined) ?? [];
      const name = slug === 'mixed' ? `next-fire.${zone}` : `next-fire.${zone}.${slug}`;
      context.emit(
        metricLine(
          name,
          round(median(rates), 0),
          'computations/s',
          zone === 'new-york' ? DST_ZONE_TARGET : null,
          {
            timezone: sample['timezone'],
            expressions: sample['expressions'],
            statistic: `median of ${rates.length} windows of ~${WINDOW_MS} ms`,
            min: round(min(rates), 0),
            max: round(max(rates), 0),
            samples: roundAll(rates, 0),
          },
        ),
      );
    }
  },
};
