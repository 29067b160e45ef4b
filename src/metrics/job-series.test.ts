// A job's series keeps nothing a scrape alone needs: the label pair is rendered at the first use, and
// the histogram is the layout's shared, frozen empty one until the first write.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BucketLayout, JobSeries } from './job-series.js';

describe('JobSeries', () => {
  test('renders its job_name label pair (escaped), the same at every use', () => {
    const series = new JobSeries('a"b\\c', new BucketLayout([1, 5]));
    assert.equal(series.label, 'job_name="a\\"b\\\\c"');
    assert.equal(series.label, 'job_name="a\\"b\\\\c"');
  });

  test('reads the shared empty histogram until the first write, which never touches it', () => {
    const layout = new BucketLayout([1, 5]);
    const idle = new JobSeries('idle', layout);
    const busy = new JobSeries('busy', layout);
    assert.equal(idle.histogram, layout.empty);
    assert.equal(busy.histogram, layout.empty);
    assert.throws(() => layout.empty.observe(2), TypeError);

    busy.writableHistogram().observe(2);
    busy.writableHistogram().observe(7);
    assert.notEqual(busy.histogram, layout.empty);
    assert.deepEqual(busy.histogram.counts, [0, 1, 1]);
    assert.equal(busy.histogram.count, 2);
    assert.equal(busy.histogram.sum, 9);
    assert.deepEqual(layout.empty.counts, [0, 0, 0]);
    assert.equal(layout.empty.count, 0);
    assert.equal(idle.histogram, layout.empty);
  });

  test('new bounds start the histogram again, empty, with the new layout', () => {
    const series = new JobSeries('job', new BucketLayout([1]));
    series.writableHistogram().observe(0.5);
    const wider = new BucketLayout([1, 2, 3]);
    series.resetHistogram(wider);
    assert.equal(series.histogram, wider.empty);
    series.writableHistogram().observe(2.5);
    assert.deepEqual(series.histogram.counts, [0, 0, 1, 0]);
  });
});
