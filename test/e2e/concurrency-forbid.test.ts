// E2E: concurrencyPolicy Forbid skips a fire while the previous instance still runs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { shellQuote, startDaemon, useTempDir, waitForFile, writeConfig } from './harness.js';

test(
  'Forbid skips the fires that overlap a running 3 s instance; instances never overlap',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const marks = join(dir, 'marks.txt');
    // The job polls its own clock for 3 s (no sleep binary granularity issues) and brackets the
    // run with start/end markers carrying its pid.
    const config = await writeConfig(
      dir,
      `jobs:
  - name: slow
    command: |
      echo "start $$" >> ${shellQuote(marks)}
      sleep 3
      echo "end $$" >> ${shellQuote(marks)}
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
`,
    );
    const daemon = startDaemon(t, ['-c', config]);
    // Two complete instances (the second one starts after the first has ended).
    await waitForFile(marks, (content) => (content.match(/^end /gm) ?? []).length >= 2, 20_000);
    assert.equal(await daemon.stop(), 0);

    const lines = (await waitForFile(marks)).trimEnd().split('\n');
    // Strictly alternating start X / end X: no second start before the running instance ended.
    for (let i = 0; i < lines.length; i++) {
      const [kind, pid] = lines[i]!.split(' ');
      if (i % 2 === 0) {
        assert.equal(kind, 'start', `marker ${i}: ${lines.join(' | ')}`);
      } else {
        assert.equal(kind, 'end', `marker ${i}: ${lines.join(' | ')}`);
        assert.equal(
          pid,
          lines[i - 1]!.split(' ')[1],
          `end of another instance: ${lines.join(' | ')}`,
        );
      }
    }
    const skips = daemon.logMessages(/^Job slow: still running and concurrencyPolicy is Forbid$/);
    assert.ok(skips.length >= 2, `expected skipped fires, got ${skips.length}`);
    const starts = daemon.logMessages(/^Starting job slow$/).length;
    assert.equal(starts, lines.filter((line) => line.startsWith('start ')).length);
  },
);
