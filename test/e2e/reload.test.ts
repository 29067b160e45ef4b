// E2E: a changed configuration is picked up while the daemon runs: jobs are added, removed and
// changed without touching unrelated running jobs, and a broken file keeps the old job set.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  killAtTeardown,
  processExists,
  readIfExists,
  readLines,
  shellQuote,
  startDaemon,
  useTempDir,
  waitForFile,
  waitForLines,
  writeConfig,
} from './harness.js';

test(
  'a reload adds, removes and changes jobs while an unrelated run keeps going; a broken file changes nothing',
  { timeout: 45_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const file = (name: string): string => join(dir, name);
    const q = (name: string): string => shellQuote(file(name));
    killAtTeardown(t, () => {
      const pid = Number(readIfExists(file('long.pid')));
      return pid > 0 ? [pid] : [];
    });

    // `long` runs from start-up until the test creates `release`; it is identical in both configs.
    const long = `  - name: long
    command: |
      echo $$ > ${q('long.pid.tmp')} && mv ${q('long.pid.tmp')} ${q('long.pid')}
      while [ ! -e ${q('release')} ]; do sleep 0.1; done
      echo "finished $$"
    schedule: "@reboot"
    captureStdout: true
`;
    const ticker = (name: string, text: string): string => `  - name: ${name}
    command: echo ${text} >> ${q(`${name}.txt`)}
    schedule: "* * * * * * *"
`;
    const config = await writeConfig(
      dir,
      `jobs:\n${long}${ticker('C', 'C')}${ticker('D', 'D-old')}`,
    );
    const daemon = startDaemon(t, ['-c', config, '--reload-interval', '1']);
    const initial = await daemon.waitForLog(/^Job set id: v1:[0-9a-f]{64} \(3 jobs\)$/);
    const longPid = Number((await waitForFile(file('long.pid'))).trim());
    await waitForLines(file('C.txt'), 1);
    await waitForLines(file('D.txt'), 1);

    // Add B, remove C, change D's command.
    await writeConfig(dir, `jobs:\n${long}${ticker('B', 'B')}${ticker('D', 'D-new')}`, 'jobs.yaml');
    // The reload logs the new job-set id.
    const initialId = /v1:[0-9a-f]{64}/.exec(initial.msg)![0];
    await daemon.waitForLog(
      new RegExp(`^Job set id: (?!${initialId})v1:[0-9a-f]{64} \\(3 jobs\\)$`),
    );
    await waitForLines(file('B.txt'), 2);
    await waitForFile(file('D.txt'), (content) => content.includes('D-new\n'));

    // C stopped firing: no C launch after B's first one (B only exists in the new config).
    const firstB = daemon.indexOfLine(/"msg":"Starting job B"/);
    assert.ok(firstB >= 0);
    assert.equal(
      daemon.lines.slice(firstB).filter((line) => line.includes('"msg":"Starting job C"')).length,
      0,
      'C fired after the reload',
    );
    const cFires = readLines(file('C.txt')).length;
    // D runs its new command from the reload on: every D-old precedes every D-new.
    const dLines = readLines(file('D.txt'));
    const firstNew = dLines.indexOf('D-new');
    assert.ok(
      dLines.slice(firstNew).every((line) => line === 'D-new'),
      dLines.join(' '),
    );
    assert.ok(
      dLines.slice(0, firstNew).every((line) => line === 'D-old'),
      dLines.join(' '),
    );

    // The unrelated run was not touched: same process, still running, launched only once.
    assert.ok(processExists(longPid), 'the unrelated run is still running');
    assert.equal(daemon.logMessages(/^Starting job long$/).length, 1);

    // A broken file is reported and the previous job set keeps running.
    await writeConfig(dir, `jobs:\n  - name: B\n    command: [echo, flow-style]\n`, 'jobs.yaml');
    const error = await daemon.waitForLog(/^Error in configuration file\(s\), so not reloading: /);
    assert.match(error.msg, /jobs\.yaml.*\(line \d+\)/);
    assert.doesNotMatch(error.msg, /\n {4}at /);
    const bBefore = readLines(file('B.txt')).length;
    await waitForLines(file('B.txt'), bBefore + 2);
    const dBefore = readLines(file('D.txt')).length;
    await waitForLines(file('D.txt'), dBefore + 1);
    assert.ok(
      readLines(file('D.txt'))
        .slice(dBefore)
        .every((line) => line === 'D-new'),
    );
    assert.equal(readLines(file('C.txt')).length, cFires, 'C fired again after the broken reload');

    // Let the unrelated run finish: same pid, normal exit.
    await writeFile(file('release'), '');
    await daemon.waitForLine(new RegExp(`^\\[long stdout\\] finished ${longPid}$`));
    await daemon.waitForLog(/^Job long exit code 0; /);
    assert.equal(daemon.logMessages(/^Starting job long$/).length, 1);
    assert.equal(await daemon.stop(), 0);
  },
);

test(
  'a config file replaced by one of the same size and modification time is still reloaded',
  { timeout: 30_000 },
  async (t) => {
    const dir = await useTempDir(t);
    const out = join(dir, 'out.txt');
    const yaml = (word: string): string => `jobs:
  - name: word
    command: echo ${word} >> ${shellQuote(out)}
    schedule: "* * * * * * *"
`;
    // Same length, same whole-second mtime: only the inode tells the two files apart.
    const mtimeSeconds = 1_700_000_000;
    const config = await writeConfig(dir, yaml('AAA'), 'jobs.yaml', { mtimeSeconds });
    const daemon = startDaemon(t, ['-c', config, '--reload-interval', '1']);
    await waitForFile(out, (content) => content.includes('AAA\n'));
    await writeConfig(dir, yaml('BBB'), 'jobs.yaml', { mtimeSeconds });
    await waitForFile(out, (content) => content.includes('BBB\n'));
    assert.equal(await daemon.stop(), 0);
    const words = readLines(out);
    const firstNew = words.indexOf('BBB');
    assert.ok(
      words.slice(firstNew).every((word) => word === 'BBB'),
      words.join(' '),
    );
  },
);
