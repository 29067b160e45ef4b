import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeJobWire, makeRun } from './job-fixture.test.js';
import { deriveRow } from './job-status.js';
import { computeVerdict, verdictText } from './verdict.js';

const failing = (name: string, exit_code: number, fail_reason: string | null) =>
  deriveRow(
    makeJobWire({ name, last_run: makeRun({ outcome: 'failure', exit_code, fail_reason }) }),
    0,
  );
const healthy = (name: string) => deriveRow(makeJobWire({ name, last_run: makeRun() }), 0);
const REASON = 'failsWhen=nonzeroReturn and retcode=2';

describe('computeVerdict', () => {
  it('is clear without failures', () => {
    const verdict = computeVerdict([healthy('a')]);
    assert.equal(verdict.kind, 'clear');
    assert.match(verdictText(verdict), /no job is failing/);
  });

  it('names the single failing job with its exit code and reason', () => {
    const verdict = computeVerdict([healthy('a'), failing('backup', 2, REASON)]);
    assert.equal(verdictText(verdict), `JOB FAILING — backup · exit 2 · ${REASON}`);
  });

  it('calls a shared exit code and reason one likely cause', () => {
    const verdict = computeVerdict([
      failing('a', 2, REASON),
      failing('b', 2, REASON),
      failing('c', 1, 'other'),
      healthy('d'),
    ]);
    assert.equal(verdict.kind, 'correlated');
    assert.equal(
      verdictText(verdict),
      `FLEET EVENT — 3 jobs failing, 2 share exit=2 (${REASON}) — likely one cause`,
    );
    if (verdict.kind === 'correlated') assert.deepEqual(verdict.group.jobs, ['a', 'b']);
  });

  it('calls scattered failures independent', () => {
    const verdict = computeVerdict([
      failing('a', 1, 'x'),
      failing('b', 2, 'y'),
      failing('c', 3, 'z'),
    ]);
    assert.equal(verdict.kind, 'independent');
    assert.match(
      verdictText(verdict),
      /^3 jobs failing — 3 different exit codes\/reasons, likely independent$/,
    );
  });

  it('needs the shared group to hold half of the failing set', () => {
    const verdict = computeVerdict([
      failing('a', 1, 'x'),
      failing('b', 1, 'x'),
      failing('c', 2, 'y'),
      failing('d', 3, 'z'),
      failing('e', 4, 'w'),
    ]);
    assert.equal(verdict.kind, 'independent');
  });
});
