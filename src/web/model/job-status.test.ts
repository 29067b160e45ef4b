import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeJobWire, makeRun } from './job-fixture.test.js';
import { JobsDecoder } from './jobs-decoder.js';
import { deriveRow, nextRow } from './job-status.js';

describe('nextRow', () => {
  const job = makeJobWire({
    name: 'a',
    scheduled_in: 10,
    last_run: makeRun({ outcome: 'failure', exit_code: 1 }),
    history: [{ outcome: 'failure', duration: 1 }],
  });

  it("reuses the decoder's copy with a new scheduled_in: only the next fire moves", () => {
    const decoder = new JobsDecoder();
    const [first] = decoder.decode(JSON.stringify([job]));
    const row = deriveRow(first!, 1000);
    const [copy] = decoder.decode(JSON.stringify([{ ...job, scheduled_in: 8 }]));
    const next = nextRow(copy!, row, 3000);
    assert.deepEqual(next, { ...row, job: copy, nextFireMs: 11_000 });
    assert.deepEqual(next, deriveRow(copy!, 3000));
  });

  it('derives afresh for a newly parsed job, another job or no previous row', () => {
    const row = deriveRow(job, 0);
    const ran = { ...job, last_run: makeRun(), history: [...job.history] };
    assert.deepEqual(nextRow(ran, row, 0), deriveRow(ran, 0));
    assert.equal(nextRow(ran, row, 0).status, 'ok');
    const renamed = { ...job, name: 'b' };
    assert.equal(nextRow(renamed, row, 0).name, 'b');
    assert.deepEqual(nextRow(job, undefined, 5), deriveRow(job, 5));
  });
});
