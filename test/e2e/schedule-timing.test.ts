// E2E: seconds-level (7-field) schedules fire in the scheduled second, and the quickstart example
// prints its hello line.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { shellQuote, startDaemon, useTempDir, waitForLines, writeConfig } from './harness.js';

test(
  'a "*/2 * * * * * *" job fires in every even second, less than 1 s after the boundary',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const fires = join(dir, 'fires.txt');
    const config = await writeConfig(
      dir,
      `jobs:
  - name: even
    command: date +%s.%N >> ${shellQuote(fires)}
    schedule: "*/2 * * * * * *"
`,
    );
    const daemon = startDaemon(t, ['-c', config]);
    const lines = await waitForLines(fires, 3, 20_000);
    assert.equal(await daemon.stop(), 0);

    const times = lines.map(Number);
    for (const time of times) {
      assert.ok(Number.isFinite(time), `not a time: ${String(time)}`);
      const boundary = Math.floor(time);
      assert.equal(boundary % 2, 0, `fired at ${time}, not within an even second`);
      assert.ok(time - boundary < 1, `fired ${time - boundary} s after the boundary`);
    }
    // Consecutive slots, each fired once: the recorded seconds step by exactly 2.
    const seconds = times.map(Math.floor);
    for (let i = 1; i < seconds.length; i++) {
      assert.equal(seconds[i]! - seconds[i - 1]!, 2, `fires at ${seconds.join(', ')}`);
    }
  },
);

test(
  'the quickstart example prints its hello line every 5 seconds, prefixed with the job name',
  { timeout: 30_000 },
  async (t) => {
    const daemon = startDaemon(t, ['-c', 'examples/quickstart.yaml']);
    const line = await daemon.waitForLine(/^\[hello stdout\] /, 15_000);
    const match = /^\[hello stdout\] hello from yacron2, it is (\d\d):(\d\d):(\d\d) UTC$/.exec(
      line,
    );
    assert.ok(match, `unexpected hello line: ${line}`);
    assert.equal(
      Number(match[3]) % 5,
      0,
      `hello fired at second ${match[3]}, not on a */5 boundary`,
    );
    await daemon.waitForLog(/^Job hello exit code 0; has stdout: True/);
    assert.equal(await daemon.stop(), 0);
  },
);
