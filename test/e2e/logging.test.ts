// E2E: the `logging` section through the built daemon (docs/configuration.md "logging"). A
// section that sends logger `yacron2` to a stdout handler at WARNING changes what the daemon
// prints (its INFO lines are gone, its warnings come out on stdout in the section's format), and
// a reload that changes the section takes effect in the same process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDaemon, useTempDir, writeConfig } from './harness.js';

/** A job whose onMissed has no effect without a state section: a WARNING at every (re)load. */
const JOBS = `jobs:
  - name: late
    command: "true"
    schedule: "0 0 1 1 *"
    onMissed: run-once
`;

function logging(level: string, format: string): string {
  return `logging:
  version: 1
  disable_existing_loggers: false
  formatters:
    plain:
      format: '${format}'
  handlers:
    out:
      class: logging.StreamHandler
      stream: ext://sys.stdout
      formatter: plain
  loggers:
    yacron2:
      level: ${level}
      handlers:
        - out
      propagate: false
`;
}

const WARNING_TEXT = 'Job late: onMissed run-once has no effect without a state section';

test(
  'the logging section redirects and filters the daemon output, and a reload changes it',
  { timeout: 60_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const config = await writeConfig(
      dir,
      JOBS + logging('WARNING', 'A|%(levelname)s|%(name)s|%(message)s'),
    );
    const daemon = startDaemon(t, ['-c', config, '--reload-interval', '1']);

    // The warning is logged after the job-set line, so once it is out the INFO line had its turn.
    await daemon.waitForLine(new RegExp(`^A\\|WARNING\\|yacron2\\|${WARNING_TEXT}$`));
    assert.ok(
      daemon.stdoutLines.includes(`A|WARNING|yacron2|${WARNING_TEXT}`),
      'the warning is written to stdout',
    );
    assert.equal(daemon.countLines(/Job set id:/), 0, daemon.lines.join('\n'));
    // propagate: false: the default stderr output does not get yacron2's records.
    assert.equal(daemon.countLines(new RegExp(`"msg":"${WARNING_TEXT}"`)), 0);

    // Reload: INFO now, another format, and a second job (so the job-set line is logged again).
    await writeConfig(
      dir,
      `${JOBS}  - name: other
    command: "true"
    schedule: "0 0 1 1 *"
${logging('INFO', 'B:%(levelname)s:%(message)s')}`,
    );
    await daemon.waitForLine(/^B:INFO:Job set id: v1:[0-9a-f]{64} \(2 jobs\)$/, 15_000);
    await daemon.waitForLine(new RegExp(`^B:WARNING:${WARNING_TEXT}$`));
    assert.ok(daemon.running, 'the same process applied it');
    assert.equal(daemon.countLines(/^A\|INFO\|/), 0);

    assert.equal(await daemon.stop(), 0);
  },
);
