// E2E: with a store, @reboot means once per OS boot (docs/durable-state.md, "@reboot once per OS
// boot"). The boot identity is faked with YACRON2_BOOT_ID_FILE: rewriting the file is a reboot.
// Restarting the daemon within one boot does not run the job again; a new boot, or a changed
// definition, does.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  readLines,
  readStoreStream,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForLines,
  writeConfig,
} from './harness.js';

test(
  '@reboot runs once per boot id across daemon restarts, and again after a reboot or a redefinition',
  { timeout: 90_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const store = join(dir, 'store');
    const boots = join(dir, 'boots.txt');
    const bootIdFile = join(dir, 'boot_id');
    const configure = (text: string): Promise<string> =>
      writeConfig(
        dir,
        `jobs:
  - name: warmup
    command: echo ${text} >> ${shellQuote(boots)}
    schedule: "@reboot"
state:
  path: ${store}
`,
      );
    const env = { ...process.env, YACRON2_BOOT_ID_FILE: bootIdFile };

    /** One daemon start: did it run the @reboot job? */
    const daemonStart = async (expectRun: boolean): Promise<void> => {
      const config = join(dir, 'jobs.yaml');
      const daemon = startDaemon(t, ['-c', config], { env });
      if (expectRun) {
        await daemon.waitForLog(/^Job warmup exit code 0;/, 20_000);
      } else {
        await daemon.waitForLog(/^Job warmup: @reboot already ran during this OS boot/, 20_000);
      }
      assert.equal(await daemon.stop(), 0);
      assert.equal(daemon.logMessages(/^Starting job warmup$/).length, expectRun ? 1 : 0);
    };

    await writeFile(bootIdFile, 'boot-1\n');
    await configure('first');
    await daemonStart(true);
    // Three more daemon starts within the same boot: the marker holds.
    for (let restart = 0; restart < 3; restart++) await daemonStart(false);
    assert.deepEqual(readLines(boots), ['first']);

    // A reboot (a new boot id): the job runs again, once.
    await writeFile(bootIdFile, 'boot-2\n');
    await daemonStart(true);
    await daemonStart(false);
    assert.deepEqual(readLines(boots), ['first', 'first']);

    // A new definition runs again in the same boot, once.
    await configure('second');
    await daemonStart(true);
    await daemonStart(false);
    assert.deepEqual(await waitForLines(boots, 3), ['first', 'first', 'second']);

    // One marker per run, recorded before it: two boot ids, two digests in boot-2.
    const markers = readStoreStream(store, 'reboot/warmup');
    assert.deepEqual(
      markers.map((marker) => marker.bootId),
      ['boot-1', 'boot-2', 'boot-2'],
    );
    for (const marker of markers) {
      assert.equal(marker.host, hostname());
      assert.match(String(marker.jobDigest), /^[0-9a-f]{64}$/);
    }
    assert.equal(markers[0]!.jobDigest, markers[1]!.jobDigest);
    assert.notEqual(markers[1]!.jobDigest, markers[2]!.jobDigest);
  },
);
