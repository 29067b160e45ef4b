import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeJob } from '../config/testing.js';
import type { ClusterApiView } from '../http/index.js';
import { withSlotFields } from './job-slot-fields.js';

const api = (fields: ReturnType<ClusterApiView['jobFields']>): ClusterApiView => ({
  status: () => null,
  fleet: () => null,
  nodeStats: () => null,
  jobFields: () => fields,
});

void test('a cluster-scope job shows the slot this node holds, in front of the election keys', () => {
  const slotted = makeJob({ name: 'slotted', concurrencyScope: 'cluster' });
  const held = new Map([['slotted', { holder: 'host-a#0123456789ab', refs: 2 }]]);
  const view = withSlotFields(api({ clusterPolicy: 'Leader' }), (job) => held.get(job));
  const fields = view.jobFields(slotted);
  assert.deepEqual(fields, {
    concurrencyScope: 'cluster',
    slot: { held: true, holder: 'host-a#0123456789ab', refs: 2 },
    clusterPolicy: 'Leader',
  });
  assert.deepEqual(Object.keys(fields), ['concurrencyScope', 'slot', 'clusterPolicy']);
  held.clear();
  assert.deepEqual(view.jobFields(slotted)?.slot, { held: false, holder: null, refs: 0 });
});

void test('without election the slot keys stand alone; a node-scope job gets none', () => {
  const view = withSlotFields(api(null), () => undefined);
  assert.deepEqual(view.jobFields(makeJob({ name: 'slotted', concurrencyScope: 'cluster' })), {
    concurrencyScope: 'cluster',
    slot: { held: false, holder: null, refs: 0 },
  });
  assert.equal(view.jobFields(makeJob({ name: 'local' })), null);
});
