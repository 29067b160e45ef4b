// E2E: the daemon as PID 1 of a new PID namespace (what a plain `docker run` without `--init`
// gives it) reaps its jobs' orphans: jobs that leave a background process behind run 60 times,
// and afterwards no process of the namespace is a zombie (docs/security.md "Running as PID 1").
// Node reaps only its own children; the spawn helper is a child subreaper, so the orphans become
// its children and it collects them.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import {
  CLI,
  killAtTeardown,
  readLines,
  shellQuote,
  useTempDir,
  waitUntil,
  writeConfig,
} from './harness.js';

const RUNS = 60;
const JOBS = 4;

interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly state: string;
  readonly name: string;
}

/** The file name of the program a process runs ('' when unreadable): the thread name (`comm`) is
 * no help for node, which names its main thread 'MainThread' from Node 24 on. */
function programOf(pid: number): string {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return '';
  }
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    out.push({
      pid: Number(entry),
      name: stat.slice(stat.indexOf('(') + 1, close),
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
    });
  }
  return out;
}

/** Every process below `root` (host pids). */
function descendants(root: number): Proc[] {
  const all = processes();
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const proc of all) {
      if (!below.has(proc.pid) && below.has(proc.ppid)) {
        below.add(proc.pid);
        grew = true;
      }
    }
  }
  return all.filter((proc) => proc.pid !== root && below.has(proc.pid));
}

const unshareWorks =
  process.platform === 'linux' &&
  spawnSync('unshare', ['-p', '-f', '--mount-proc', 'true'], { stdio: 'ignore' }).status === 0;

test(
  'as PID 1 of a PID namespace, the daemon leaves no zombie after 60 orphaning runs',
  {
    timeout: 120_000,
    skip: !unshareWorks && 'cannot make a PID namespace here (unshare -p needs root or userns)',
  },
  async (t) => {
    const dir = await useTempDir(t);
    const runs = join(dir, 'runs');
    // Each run leaves a `sleep` behind whose parent (the subshell) has already exited, then
    // counts itself; after RUNS runs in all the jobs do nothing.
    const command = `[ "$(wc -l < ${shellQuote(runs)} 2>/dev/null || echo 0)" -ge ${RUNS} ] && exit 0; (sleep 0.2 &); echo run >> ${shellQuote(runs)}`;
    const jobs = Array.from(
      { length: JOBS },
      (_, index) =>
        `  - name: orphans-${index}\n    schedule: "* * * * * * *"\n    command: ${JSON.stringify(command)}\n`,
    ).join('');
    const config = await writeConfig(dir, `jobs:\n${jobs}`);
    const unshare = spawn(
      'unshare',
      ['-p', '-f', '--mount-proc', '--kill-child', process.execPath, CLI, '-c', config],
      { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    );
    let stderr = '';
    unshare.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-8192);
    });
    killAtTeardown(t, () => (unshare.pid === undefined ? [] : [unshare.pid]));
    const root = unshare.pid!;

    await waitUntil(() => readLines(runs).length >= RUNS, `${RUNS} orphaning runs`, {
      timeoutMs: 60_000,
      intervalMs: 200,
    }).catch((error: Error) => {
      throw new Error(`${error.message}; daemon stderr:\n${stderr}`);
    });
    const init = descendants(root).find((proc) => proc.ppid === root);
    assert.ok(init, 'the namespace has its init');
    assert.equal(programOf(init.pid), 'node', 'the daemon itself is the namespace init');
    // Every orphan `sleep` has ended: anything left of them now is a zombie nobody reaps.
    await waitUntil(
      () => descendants(root).every((proc) => proc.name !== 'sleep' || proc.state === 'Z'),
      'the orphans to end',
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    // The helper reaps on its next SIGCHLD; give it that moment without sleeping blindly.
    const zombies = await waitUntil(
      () => {
        const left = descendants(root).filter((proc) => proc.state === 'Z');
        return left.length === 0 ? left : false;
      },
      'no zombies',
      { timeoutMs: 5_000, intervalMs: 100 },
    ).catch(() => descendants(root).filter((proc) => proc.state === 'Z'));
    assert.deepEqual(
      zombies.map((proc) => `${proc.pid} ${proc.name} (parent ${proc.ppid})`),
      [],
      'zombies in the namespace',
    );
  },
);
