// Test support (no tests here): a fake /proc whose processes tests add, change and remove
// between passes, counting the stat files read; and a map-backed source for cgroup/meminfo trees.
import type { OpenFile, ProcSource } from './proc-source.js';

export interface FakeProcess {
  pid: number;
  ppid: number;
  pgrp?: number;
  session?: number;
  comm?: string;
  state?: string;
  userTicks?: number;
  systemTicks?: number;
  childUserTicks?: number;
  childSystemTicks?: number;
  startTicks?: number;
  rssPages?: number;
}

/** A /proc/<pid>/stat line as the kernel writes it (52 fields). */
export function statLine(proc: FakeProcess): string {
  const fields = new Array<string | number>(52).fill(0);
  fields[0] = proc.pid;
  fields[1] = `(${proc.comm ?? 'sh'})`;
  fields[2] = proc.state ?? 'S';
  fields[3] = proc.ppid;
  fields[4] = proc.pgrp ?? proc.pid;
  fields[5] = proc.session ?? proc.pid;
  fields[6] = 0;
  fields[7] = -1;
  fields[13] = proc.userTicks ?? 0;
  fields[14] = proc.systemTicks ?? 0;
  fields[15] = proc.childUserTicks ?? 0;
  fields[16] = proc.childSystemTicks ?? 0;
  fields[17] = 20;
  fields[19] = 1;
  fields[21] = proc.startTicks ?? 1000;
  fields[22] = 1_000_000;
  fields[23] = proc.rssPages ?? 0;
  return `${fields.join(' ')}\n`;
}

/** A mutable fake /proc: listing, <pid>/stat, and any extra files (e.g. self/auxv). */
export class FakeProc implements ProcSource {
  readonly processes = new Map<number, FakeProcess>();
  readonly files = new Map<string, string>();
  /** stat files read so far (by path or through a kept file). */
  statReads = 0;
  /** Kept files open now. */
  openFiles = 0;
  /** When false, listing /proc fails (a host without procfs). */
  listable = true;

  constructor(readonly root = '/proc') {}

  add(...processes: FakeProcess[]): this {
    for (const proc of processes) this.processes.set(proc.pid, { ...proc });
    return this;
  }

  update(pid: number, change: Partial<FakeProcess>): this {
    const proc = this.processes.get(pid);
    if (!proc) throw new Error(`no fake process ${pid}`);
    Object.assign(proc, change);
    return this;
  }

  remove(...pids: number[]): this {
    for (const pid of pids) this.processes.delete(pid);
    return this;
  }

  /** A kept stat file reads the process it was opened on, and fails once that one is gone. */
  open(path: string): OpenFile | undefined {
    const match = new RegExp(`^${this.root}/(\\d+)/stat$`).exec(path);
    const proc = match ? this.processes.get(Number(match[1])) : undefined;
    if (proc === undefined) return undefined;
    this.openFiles++;
    let open = true;
    return {
      read: () => {
        if (!open) throw new Error('read after close');
        if (this.processes.get(proc.pid) !== proc) return undefined;
        this.statReads++;
        return statLine(proc);
      },
      close: () => {
        if (open) this.openFiles--;
        open = false;
      },
    };
  }

  listDir(path: string): readonly string[] | undefined {
    if (path !== this.root) return undefined;
    if (!this.listable) return undefined;
    return ['self', 'stat', ...[...this.processes.keys()].map(String)];
  }

  readText(path: string): string | undefined {
    const file = this.files.get(path);
    if (file !== undefined) return file;
    const match = new RegExp(`^${this.root}/(\\d+)/stat$`).exec(path);
    if (!match) return undefined;
    this.statReads++;
    const proc = this.processes.get(Number(match[1]));
    return proc ? statLine(proc) : undefined;
  }

  readBytes(path: string): Uint8Array | undefined {
    const text = this.readText(path);
    return text === undefined ? undefined : new TextEncoder().encode(text);
  }
}

/** A source over a map of files that tests may change between readings (cgroup trees, meminfo). */
export class FileTree implements ProcSource {
  readonly files: Map<string, string>;

  constructor(files: Record<string, string>) {
    this.files = new Map(Object.entries(files));
  }

  set(path: string, text: string): this {
    this.files.set(path, text);
    return this;
  }

  open(path: string): OpenFile | undefined {
    if (!this.files.has(path)) return undefined;
    return { read: () => this.files.get(path), close: () => undefined };
  }

  listDir(): readonly string[] | undefined {
    return undefined;
  }

  readText(path: string): string | undefined {
    return this.files.get(path);
  }

  readBytes(path: string): Uint8Array | undefined {
    const text = this.files.get(path);
    return text === undefined ? undefined : new TextEncoder().encode(text);
  }
}
