import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CUES, cueFor, toneGain } from './cues.js';
import type { FinishedRun } from './run-alerts.js';

function finished(outcome: FinishedRun['outcome']): FinishedRun {
  return { job: 'j', outcome, exitCode: null, failReason: null, finishedAt: 'x' };
}

describe('cueFor', () => {
  it('sounds one cue per poll: a failure wins, a cancelled run sounds none', () => {
    assert.equal(cueFor([]), null);
    assert.equal(cueFor([finished('cancelled')]), null);
    assert.equal(cueFor([finished('success')]), 'ok');
    assert.equal(cueFor([finished('success'), finished('failure')]), 'fail');
  });
});

describe('CUES', () => {
  it('sounds apart: the failure cue is lower, longer and rougher than the success cue', () => {
    const ok = CUES.ok;
    const fail = CUES.fail;
    assert.ok(fail.length > ok.length);
    assert.ok(Math.max(...fail.map((t) => t.hz)) < Math.min(...ok.map((t) => t.hz)));
    assert.equal(fail[0]!.type, 'sawtooth');
    assert.equal(ok[0]!.type, 'sine');
  });

  it('scales with the volume and stays well below full scale', () => {
    const tone = CUES.fail[0]!;
    assert.equal(toneGain(tone, 50) * 2, toneGain(tone, 100));
    assert.ok(toneGain(tone, 100) <= 0.2);
  });
});
