// E2E: @reboot jobs run once per daemon start; reloads never run them again, not even when they
// are changed or newly added.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  readIfExists,
  readLines,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForLines,
  writeConfig,
} from './harness.js';

test(
  '@reboot runs once per daemon start and not again after a reload',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const boots = join(dir, 'boots.txt');
    const ticks = join(dir, 'ticks.txt');
    const reboot = (name: string, text: string): string => `  - name: ${name}
    command: echo ${text} >> ${shellQuote(boots)}
    schedule: "@reboot"
`;
    const ticker = `  - name: ticker
    command: echo tick >> ${shellQuote(ticks)}
    schedule: "* * * * * * *"
`;
    const config = await writeConfig(dir, `jobs:\n${reboot('boot', 'first')}`);
    const daemon = startDaemon(t, ['-c', config, '--reload-interval', '1']);
    assert.deepEqual(await waitForLines(boots, 1), ['first']);
    await daemon.waitForLog(/^Job boot exit code 0;/);

    // Reload: the @reboot job changes its command, another @reboot job and a ticker are added.
    await writeConfig(dir, `jobs:\n${reboot('boot', 'second')}${reboot('late', 'late')}${ticker}`);
    await daemon.waitForLog(/^Job set id: v1:[0-9a-f]{64} \(3 jobs\)$/);
    // The ticker firing twice shows the reloaded config is live, for a while.
    await waitForLines(ticks, 2);
    assert.equal(await daemon.stop(), 0);

    assert.deepEqual(readLines(boots), ['first'], `boots.txt: ${readIfExists(boots)}`);
    assert.equal(daemon.logMessages(/^Starting job boot$/).length, 1);
    assert.equal(daemon.logMessages(/^Starting job late$/).length, 0);

    // The next daemon start runs every @reboot job of the current config once.
    const restarted = startDaemon(t, ['-c', config]);
    const after = await waitForLines(boots, 3);
    await restarted.waitForLog(/^Job ticker exit code/); // a timer-driven line: start-up is over
    assert.equal(await restarted.stop(), 0);
    assert.deepEqual(after.slice(1).sort(), ['late', 'second']);
    assert.equal(readLines(boots).length, 3);
  },
);
