// Streams on disk (docs/durable-state-store.md "Records"): records/<enc(stream)>/<name>.json,
// one immutable envelope per file, placed by rename from tmp/. Every regular `*.json` file in a
// stream directory is a record whatever the rest of its name (byte order of the names is the
// order; other files are ignored, never quarantined). Reads follow the reference's rules: a
// vanished file is skipped; an unreadable one (I/O error, directory, link, over the size cap)
// is warned about and left; a file that is not a JSON object envelope is quarantined; a newer
// schemaVersion is warned about and left. Strict reads fail instead of skipping. getRecord opens
// the one file `<id>.json` (docs/durable-state-store.md "Reading one record"), never a path.
// Must not: quarantine anything in the `meta` stream (a newer build's stamp must survive).
import type { Stats } from 'node:fs';
import { lstat, readdir, rename, rm, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { compareCodePoints, describeError, YacronError } from '../common/index.js';
import { maxOverRecords } from './derive.js';
import type { FsContext } from './fs-context.js';
import {
  ensureOwnDir,
  errorCode,
  placeNewFile,
  readCapped,
  readdirOrEmpty,
  writeAtomic,
} from './fs-files.js';
import { decodeName, encodeStoreName, isTruncatedToken, encodeName } from './name-encoding.js';
import { RecordCache } from './record-cache.js';
import {
  RECORD_FILE_SUFFIX,
  assertKeep,
  assertPlainObject,
  parseEnvelope,
  recordTimeMs,
  serializeEnvelope,
} from './record-format.js';
import { assertDecideInputs, assertRecordSize, filterPrefix, isRecordId } from './store-checks.js';
import type {
  DeriveMaxOptions,
  DerivedMax,
  ListOptions,
  StateRecord,
  StreamSize,
} from './types.js';

/** The stream holding the store's version stamp. */
export const META_STREAM = 'meta';
/** Inside a truncated stream directory: the stream's real name (raw UTF-8, no newline). */
export const STREAM_NAME_FILE = 'stream-name.txt';
/** How #read treats a file it cannot read (see there). */
type ReadMode = 'lenient' | 'strict' | 'one';

/** Records read at once while listing. */
const READ_BATCH = 32;
/** A stream name sidecar is small; anything bigger is not one. */
const MAX_SIDECAR_BYTES = 64 * 1024;

/** The record file names of a directory listing, newest first (reverse byte order). */
function recordNames(entries: readonly string[]): string[] {
  return entries
    .filter((entry) => entry.endsWith(RECORD_FILE_SUFFIX))
    .sort(compareCodePoints)
    .reverse();
}

export interface MetaStamp {
  readonly schemaVersion: string;
  readonly data: unknown;
}

export class FsStreams {
  readonly #ctx: FsContext;
  readonly #cache: RecordCache;
  /** Stream directories this process knows exist (saves a mkdir per append). */
  readonly #knownDirs = new Set<string>();

  constructor(ctx: FsContext, cacheBytes: number) {
    this.#ctx = ctx;
    this.#cache = new RecordCache(cacheBytes);
  }

  #dir(stream: string): { token: string; dir: string } {
    const token = encodeStoreName(stream, 'stream');
    return { token, dir: path.join(this.#ctx.layout.records, token) };
  }

  async #ensureDir(stream: string, token: string, dir: string): Promise<void> {
    const durable = this.#ctx.fsyncRecords;
    await ensureOwnDir(dir, { durable, syncDir: this.#ctx.syncDir });
    if (isTruncatedToken(token)) {
      await writeAtomic(
        this.#ctx.layout.tmp,
        this.#ctx.seq.nextTemp(),
        path.join(dir, STREAM_NAME_FILE),
        stream,
        { durable, syncDir: this.#ctx.syncDir },
      );
    }
    this.#knownDirs.add(dir);
  }

  /**
   * Learns the stream directories already on disk (one listing, at open), so a restarted daemon's
   * first append to each stream skips its mkdir and lstat: at a 200-job instant after a restart
   * those were 400 pairs of file-system calls on the first instant alone (docs/performance.md
   * "The first instant"). Only real directories count (a link is still refused at its first
   * append), and truncated names are left to #ensureDir, which rewrites their name sidecar.
   * A listing that fails teaches nothing: appends then check each directory as before.
   */
  async learnExistingDirs(): Promise<void> {
    const records = this.#ctx.layout.records;
    let entries;
    try {
      entries = await readdir(records, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !isTruncatedToken(entry.name)) {
        this.#knownDirs.add(path.join(records, entry.name));
      }
    }
  }

  async append(stream: string, data: object): Promise<StateRecord> {
    const { token, dir } = this.#dir(stream);
    assertPlainObject(data, `record of ${stream}`);
    const text = serializeEnvelope(data, `record of ${stream}`);
    assertRecordSize(text, this.#ctx.maxRecordBytes, `record of ${stream}`);
    const { id, writtenAtMs } = this.#ctx.seq.nextRecord();
    const durable = this.#ctx.fsyncRecords;
    if (!this.#knownDirs.has(dir)) await this.#ensureDir(stream, token, dir);
    const target = path.join(dir, `${id}${RECORD_FILE_SUFFIX}`);
    await placeNewFile(this.#ctx.layout.tmp, this.#ctx.seq.nextTemp(), target, text, {
      durable,
      // Another process deleted the stream directory (GC, deleteStream): recreate it.
      onMissingDir: async () => {
        this.#knownDirs.delete(dir);
        await this.#ensureDir(stream, token, dir);
      },
    });
    if (durable) await this.#ctx.syncDir(dir);
    const parsed = JSON.parse(text) as { data: StateRecord['data'] };
    return { stream, id, writtenAtMs, data: parsed.data };
  }

  async list(stream: string, options: ListOptions = {}): Promise<StateRecord[]> {
    const { dir } = this.#dir(stream);
    const names = recordNames(await readdirOrEmpty(dir));
    const limit = options.limit ?? names.length;
    const mode: ReadMode = options.strict === true ? 'strict' : 'lenient';
    const out: StateRecord[] = [];
    let next = 0;
    while (out.length < limit && next < names.length) {
      const batch = names.slice(next, next + Math.min(READ_BATCH, limit - out.length));
      next += batch.length;
      const read = await Promise.all(batch.map((name) => this.#read(stream, dir, name, mode)));
      for (const record of read) if (record && out.length < limit) out.push(record);
    }
    return out;
  }

  /**
   * One record by id: the one file `<id>.json` of the stream's directory, read within the record
   * size cap; no listing. The stream directory must be a real directory (a link planted there is
   * refused, never followed). Skips the cache: a peer may have pruned the file, and the file is
   * the truth about whether the record exists.
   */
  async get(stream: string, id: string): Promise<StateRecord | undefined> {
    const { dir } = this.#dir(stream);
    if (!isRecordId(id)) return undefined;
    let stats: Stats;
    try {
      stats = await lstat(dir);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw new YacronError(
        'YC_ERR_STATE_IO',
        `Cannot read stream ${dir}: ${describeError(error)}`,
        {
          cause: error,
        },
      );
    }
    if (!stats.isDirectory()) {
      throw new YacronError(
        'YC_ERR_STATE_UNSAFE',
        `Cannot read stream ${dir}: it is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; the store never follows a link there`,
      );
    }
    return this.#read(stream, dir, `${id}${RECORD_FILE_SUFFIX}`, 'one');
  }

  async deriveMax(
    stream: string,
    field: string,
    options: DeriveMaxOptions = {},
  ): Promise<DerivedMax | undefined> {
    assertDecideInputs(field);
    return maxOverRecords(await this.list(stream, { strict: true }), field, options);
  }

  async prune(stream: string, keep: number): Promise<number> {
    const { dir } = this.#dir(stream);
    assertKeep(keep);
    const doomed = recordNames(await readdirOrEmpty(dir)).slice(keep);
    let deleted = 0;
    for (let i = 0; i < doomed.length; i += READ_BATCH) {
      const results = await Promise.all(
        doomed.slice(i, i + READ_BATCH).map(async (name) => {
          const filePath = path.join(dir, name);
          this.#cache.delete(filePath);
          try {
            await unlink(filePath);
            return 1;
          } catch (error) {
            const code = errorCode(error);
            if (code === 'ENOENT') return 0; // a peer pruned it first
            if (code === 'EISDIR' || code === 'EPERM') return 0; // not a record file
            throw error;
          }
        }),
      );
      for (const n of results) deleted += n;
    }
    return deleted;
  }

  /** Rename the directory into tmp/ first, so the stream vanishes at once, then remove it. */
  async deleteStream(stream: string): Promise<boolean> {
    const { dir } = this.#dir(stream);
    const doomed = path.join(this.#ctx.layout.tmp, `deleted-${this.#ctx.seq.nextTemp()}`);
    this.#knownDirs.delete(dir);
    this.#cache.deletePrefix(`${dir}${path.sep}`);
    try {
      await rename(dir, doomed);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
    await rm(doomed, { recursive: true, force: true });
    return true;
  }

  async listStreams(prefix?: string): Promise<string[]> {
    const names: string[] = [];
    for (const entry of await readdirOrEmpty(this.#ctx.layout.records)) {
      const name = await this.#streamName(entry);
      if (name !== undefined) names.push(name);
    }
    return filterPrefix(names, prefix);
  }

  /** Streams and records on disk (describe()). */
  async count(): Promise<{ streams: number; records: number }> {
    const sizes = await this.sizes();
    return { streams: sizes.length, records: sizes.reduce((sum, size) => sum + size.records, 0) };
  }

  /** Every stream with its number of record files, sorted by name (nothing is read). */
  async sizes(): Promise<StreamSize[]> {
    const sizes = new Map<string, number>();
    for (const entry of await readdirOrEmpty(this.#ctx.layout.records)) {
      const name = await this.#streamName(entry);
      if (name === undefined) continue;
      const files = await readdirOrEmpty(path.join(this.#ctx.layout.records, entry));
      sizes.set(name, files.filter((file) => file.endsWith(RECORD_FILE_SUFFIX)).length);
    }
    return filterPrefix(sizes.keys(), undefined).map((name) => ({
      name,
      records: sizes.get(name) ?? 0,
    }));
  }

  /** The meta stream's envelopes that carry a string schemaVersion, newest first; never moved. */
  async readMetaStamps(): Promise<MetaStamp[]> {
    const { dir } = this.#dir(META_STREAM);
    const stamps: MetaStamp[] = [];
    for (const name of recordNames(await readdirOrEmpty(dir))) {
      const verdict = await readCapped(path.join(dir, name), this.#ctx.maxRecordBytes);
      if (verdict.kind !== 'ok') continue;
      try {
        const envelope = JSON.parse(verdict.text) as { schemaVersion?: unknown; data?: unknown };
        if (typeof envelope.schemaVersion === 'string') {
          stamps.push({ schemaVersion: envelope.schemaVersion, data: envelope.data });
        }
      } catch {
        // A torn stamp says nothing; the next open writes a fresh one if none is readable.
      }
    }
    return stamps;
  }

  /** A stream directory's name: its decoding, or (truncated) the sidecar that encodes to it. */
  async #streamName(entry: string): Promise<string | undefined> {
    if (!isTruncatedToken(entry)) return decodeName(entry);
    const verdict = await readCapped(
      path.join(this.#ctx.layout.records, entry, STREAM_NAME_FILE),
      MAX_SIDECAR_BYTES,
    );
    if (verdict.kind !== 'ok' || encodeName(verdict.text) !== entry) return undefined;
    return verdict.text;
  }

  /**
   * Read one record file. `lenient` (a listing): an unreadable file is warned about and skipped;
   * `strict`: it fails the read; `one` (getRecord): strict, the cache is not consulted, and a
   * file that can never be read (a link, a directory, over the cap) is YC_ERR_STATE_CORRUPT
   * rather than an I/O error.
   */
  async #read(
    stream: string,
    dir: string,
    name: string,
    mode: ReadMode,
  ): Promise<StateRecord | undefined> {
    const filePath = path.join(dir, name);
    if (mode !== 'one') {
      const cached = this.#cache.get(filePath);
      if (cached) return cached;
    }
    const verdict = await readCapped(filePath, this.#ctx.maxRecordBytes);
    const { quarantine } = this.#ctx;
    const strict = mode !== 'lenient';
    switch (verdict.kind) {
      case 'missing':
        return undefined; // pruned or deleted since the listing
      case 'io-error':
      case 'not-a-file':
      case 'too-large': {
        const code = verdict.kind === 'io-error' ? verdict.code : verdict.kind;
        if (strict) {
          const permanent = mode === 'one' && verdict.kind !== 'io-error';
          throw new YacronError(
            permanent ? 'YC_ERR_STATE_CORRUPT' : 'YC_ERR_STATE_IO',
            `Cannot read record ${filePath}: ${verdict.detail}`,
          );
        }
        quarantine.warnIoError(filePath, code, verdict.detail);
        return undefined;
      }
      case 'ok':
        break;
    }
    const parsed = parseEnvelope(verdict.text);
    switch (parsed.kind) {
      case 'corrupt':
        if (stream !== META_STREAM) await quarantine.move(filePath, 'malformed', parsed.detail);
        return undefined;
      case 'newer-schema':
        if (strict) {
          throw new YacronError(
            'YC_ERR_STATE_SCHEMA',
            `Cannot read record ${filePath}: schemaVersion ${parsed.version} is newer than this build understands`,
          );
        }
        quarantine.warnNewerSchema(filePath, parsed.version);
        return undefined;
      case 'ok': {
        const id = name.slice(0, -RECORD_FILE_SUFFIX.length);
        const record: StateRecord = {
          stream,
          id,
          writtenAtMs: recordTimeMs(name),
          data: parsed.data,
        };
        return this.#cache.set(filePath, record, verdict.text.length);
      }
    }
  }
}
