import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { incidentMarkdown } from './incident.js';
import { makeJobWire, makeRun } from './job-fixture.test.js';
import { deriveRow } from './job-status.js';
import { computeVerdict } from './verdict.js';

describe('incidentMarkdown', () => {
  it('writes the context, the verdict and one escaped row per failing job', () => {
    const rows = [
      deriveRow(
        makeJobWire({
          name: 'a|b',
          last_run: makeRun({
            outcome: 'failure',
            exit_code: 3,
            fail_reason: 'x\ny',
            duration: 61,
          }),
        }),
        0,
      ),
    ];
    const text = incidentMarkdown({
      nowMs: Date.parse('2026-06-21T12:00:05Z'),
      host: '127.0.0.1:8080',
      version: '0.1.0',
      jobSetId: 'v1:abc',
      cluster: 'not configured',
      verdict: computeVerdict(rows),
      rows,
      actions: ['start a|b: ok'],
    });
    assert.match(text, /^## Incident summary — 2026-06-21 12:00:05 UTC\n/);
    assert.match(text, /- Verdict: JOB FAILING — a\|b · exit 3 · x\ny/);
    assert.match(text, /\| a\\\|b \| Failed \| 3 \| x y \| 2026-06-21 12:00:00 UTC \| 1 m 01 s \|/);
    assert.match(text, /### Actions\n\n- start a\|b: ok\n$/);
  });
});
