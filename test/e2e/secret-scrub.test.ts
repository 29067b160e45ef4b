// E2E: a job that prints its own job-API token and a staged secret (docs/security.md "Secrets"):
// neither reaches the daemon's output (the echo of its lines, the failure log), the shell
// reporter's YACRON2_STDOUT, nor the archive, even with redactArchivedSecrets off.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startDaemon, waitForFile, waitForStoreRecords } from './harness.js';
import { onceJob, useJobState } from './job-fixture.test.js';

const SECRET = 's3cr3t-printed-by-the-job';

test(
  'a printed token and staged secret are [REDACTED] in the log, the report and the archive',
  { timeout: 60_000 },
  async (t) => {
    const setup = await useJobState(t);
    const report = setup.file('report');
    const config = await setup.writeJobs(`jobs:
${onceJob(
  setup,
  'leaky',
  `echo "$YACRON2_STATE_TOKEN" > ${setup.file('token')}
echo "token $YACRON2_STATE_TOKEN"
echo "secret $(yacron2 secret get API_TOKEN)" >&2
exit 3`,
  `captureStdout: true
captureStderr: true
archiveOutput: true
redactArchivedSecrets: false
secrets:
  - name: API_TOKEN
    value: ${SECRET}
onFailure:
  report:
    shell:
      command: |
        printf '%s\\n' "$YACRON2_STDOUT" "$YACRON2_STDERR" > ${report}.tmp
        mv ${report}.tmp ${report}`,
)}`);
    const daemon = startDaemon(t, ['-c', config], { env: setup.env });
    const token = (
      await waitForFile(join(setup.dir, 'token'), (text) => text.endsWith('\n'))
    ).trim();
    assert.match(token, /^[0-9a-f]{64}$/);
    const reported = await waitForFile(join(setup.dir, 'report'), (text) => text !== '');
    assert.equal(reported, 'token [REDACTED]\n\nsecret [REDACTED]\n\n');
    const [archived] = await waitForStoreRecords(
      setup.store,
      'logs/leaky',
      (records) => records.length > 0,
      { daemon },
    );
    // The archive's lines, by stream (two pipes: their relative order is the read order).
    const lines = archived?.['lines'] as { stream: string; line: string }[];
    const of = (stream: string): string[] =>
      lines.filter((entry) => entry.stream === stream).map((entry) => entry.line);
    assert.deepEqual(of('stdout'), ['token [REDACTED]\n']);
    assert.deepEqual(of('stderr'), ['secret [REDACTED]\n']);
    assert.equal(archived?.['redacted'], false);
    assert.equal(await daemon.stop(), 0);
    const output = daemon.lines.join('\n');
    assert.ok(!output.includes(token), 'the token is in the daemon output');
    assert.ok(!output.includes(SECRET), 'the secret is in the daemon output');
    assert.ok(daemon.lines.includes('[leaky stderr] secret [REDACTED]'), 'the echo of the line');
    assert.match(output, /"Job leaky STDOUT:\\ntoken \[REDACTED\]"/, 'the failure log');
    assert.ok(readFileSync(join(setup.dir, 'token'), 'utf8').includes(token), 'the job got it');
  },
);
