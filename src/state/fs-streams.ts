// Streams on disk: records/<encoded stream>/<record id>.json, one immutable envelope per file,
// placed by rename from tmp/. Reads never throw for a bad file: unknown schema, truncated or
// non-JSON content, wrong file types, oversized files and foreign names are quarantined; plain
// I/O errors skip the file for this read. The meta stream is never quarantined (a newer
// build's stamp must survive an older build's reads).
import { mkdir, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { YacronError, describeError } from '../common/errors.js';
import { maxOverRecords } from './derive.js';
import type { FsContext } from './fs-context.js';
import { DIR_MODE, FILE_MODE, errorCode, placeNewFile, readCapped, syncDir } from './fs-files.js';
import { decodeName, encodeName, isHashedEncoding } from './name-encoding.js';
import { RecordCache } from './record-cache.js';
import {
  RECORD_FILE_SUFFIX,
  assertKeep,
  assertPlainObject,
  parseRecordEnvelope,
  parseRecordId,
  serializeEnvelope,
} from './record-format.js';
import { assertDecideInputs, assertRecordSize, validateStreamName } from './store-checks.js';
import type { DeriveMaxOptions, DerivedMax, ListOptions, StateRecord } from './types.js';

/** The stream holding the store's version stamp. */
export const META_STREAM = 'meta';
/** Inside a hashed (long-name) stream directory: the stream's real name. */
const NAME_FILE = '.stream-name';
/** Records read at once while listing. */
const READ_BATCH = 32;

function recordNames(entries: readonly string[]): { valid: string[]; foreign: string[] } {
  const valid: string[] = [];
  const foreign: string[] = [];
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    const id = entry.endsWith(RECORD_FILE_SUFFIX) ? entry.slice(0, -RECORD_FILE_SUFFIX.length) : '';
    if (parseRecordId(id) === undefined) foreign.push(entry);
    else valid.push(entry);
  }
  valid.sort().reverse();
  return { valid, foreign };
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
    throw new YacronError('YC_ERR_STATE_IO', `Cannot list ${dir}: ${describeError(error)}`, {
      cause: error,
    });
  }
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

  #dir(stream: string): { encoded: string; dir: string } {
    const encoded = encodeName(stream, 'stream');
    return { encoded, dir: path.join(this.#ctx.layout.records, encoded) };
  }

  async #ensureDir(stream: string, encoded: string, dir: string): Promise<void> {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    if (isHashedEncoding(encoded)) {
      await writeFile(path.join(dir, NAME_FILE), stream, { mode: FILE_MODE });
    }
    this.#knownDirs.add(dir);
  }

  async append(stream: string, data: object): Promise<StateRecord> {
    validateStreamName(stream);
    assertPlainObject(data, `record of ${stream}`);
    const text = serializeEnvelope(data, `record of ${stream}`);
    assertRecordSize(text, this.#ctx.maxRecordBytes, `record of ${stream}`);
    const { encoded, dir } = this.#dir(stream);
    const { id, writtenAtMs } = this.#ctx.ids.next();
    const durable = this.#ctx.fsyncRecords;
    if (!this.#knownDirs.has(dir)) await this.#ensureDir(stream, encoded, dir);
    const target = path.join(dir, `${id}${RECORD_FILE_SUFFIX}`);
    await placeNewFile(this.#ctx.layout.tmp, `${id}.tmp`, target, text, {
      durable,
      // Another process deleted the stream directory (GC, deleteStream): recreate it.
      onMissingDir: async () => {
        this.#knownDirs.delete(dir);
        await this.#ensureDir(stream, encoded, dir);
      },
    });
    if (durable) await syncDir(dir);
    const parsed = JSON.parse(text) as { data: StateRecord['data'] };
    return { stream, id, writtenAtMs, data: parsed.data };
  }

  async list(stream: string, options: ListOptions = {}): Promise<StateRecord[]> {
    validateStreamName(stream);
    const { encoded, dir } = this.#dir(stream);
    const { valid, foreign } = recordNames(await readdirOrEmpty(dir));
    await this.#quarantineForeign(stream, encoded, dir, foreign);
    const limit = options.limit ?? valid.length;
    const out: StateRecord[] = [];
    let next = 0;
    while (out.length < limit && next < valid.length) {
      const batch = valid.slice(next, next + Math.min(READ_BATCH, limit - out.length));
      next += batch.length;
      const read = await Promise.all(batch.map((name) => this.#read(stream, encoded, dir, name)));
      for (const record of read) if (record && out.length < limit) out.push(record);
    }
    return out;
  }

  async deriveMax(
    stream: string,
    field: string,
    options: DeriveMaxOptions = {},
  ): Promise<DerivedMax | undefined> {
    assertDecideInputs(field);
    return maxOverRecords(await this.list(stream), field, options);
  }

  async prune(stream: string, keep: number): Promise<number> {
    validateStreamName(stream);
    assertKeep(keep);
    const { dir } = this.#dir(stream);
    const { valid } = recordNames(await readdirOrEmpty(dir));
    const doomed = valid.slice(keep);
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
            if (errorCode(error) === 'ENOENT') return 0; // a peer pruned it first
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
    validateStreamName(stream);
    const { dir } = this.#dir(stream);
    const doomed = path.join(this.#ctx.layout.tmp, `${this.#ctx.ids.token()}.deleted-stream`);
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
      if (name !== undefined && (prefix === undefined || name.startsWith(prefix))) names.push(name);
    }
    return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Streams and records on disk (describe()). */
  async count(): Promise<{ streams: number; records: number }> {
    let streams = 0;
    let records = 0;
    for (const entry of await readdirOrEmpty(this.#ctx.layout.records)) {
      if ((await this.#streamName(entry)) === undefined) continue;
      streams += 1;
      records += recordNames(await readdirOrEmpty(path.join(this.#ctx.layout.records, entry))).valid
        .length;
    }
    return { streams, records };
  }

  /** The raw envelopes of the meta stream (schema versions included), never quarantined. */
  async readMetaStamps(): Promise<{ schemaVersion: string; data: unknown }[]> {
    const { dir } = this.#dir(META_STREAM);
    const stamps: { schemaVersion: string; data: unknown }[] = [];
    for (const name of recordNames(await readdirOrEmpty(dir)).valid) {
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

  async #streamName(entry: string): Promise<string | undefined> {
    if (entry.startsWith('.')) return undefined;
    if (!isHashedEncoding(entry)) return decodeName(entry);
    const verdict = await readCapped(
      path.join(this.#ctx.layout.records, entry, NAME_FILE),
      64 * 1024,
    );
    if (verdict.kind !== 'ok' || encodeName(verdict.text) !== entry) return undefined;
    return verdict.text;
  }

  async #quarantineForeign(
    stream: string,
    encoded: string,
    dir: string,
    foreign: readonly string[],
  ): Promise<void> {
    if (stream === META_STREAM) return;
    for (const name of foreign) {
      await this.#ctx.quarantine.move(
        'records',
        encoded,
        name,
        'bad-name',
        `not a record name in ${dir}`,
      );
    }
  }

  async #read(
    stream: string,
    encoded: string,
    dir: string,
    name: string,
  ): Promise<StateRecord | undefined> {
    const filePath = path.join(dir, name);
    const cached = this.#cache.get(filePath);
    if (cached) return cached;
    const verdict = await readCapped(filePath, this.#ctx.maxRecordBytes);
    const quarantine = stream !== META_STREAM;
    switch (verdict.kind) {
      case 'missing':
        return undefined; // pruned or deleted since the listing
      case 'io-error':
        this.#ctx.quarantine.warnIoError(filePath, verdict.code, verdict.detail);
        return undefined;
      case 'bad':
        if (quarantine) {
          await this.#ctx.quarantine.move('records', encoded, name, verdict.reason, verdict.detail);
        }
        return undefined;
      case 'ok': {
        const parsed = parseRecordEnvelope(verdict.text);
        if (!parsed.ok) {
          if (quarantine) {
            await this.#ctx.quarantine.move('records', encoded, name, parsed.reason, parsed.detail);
          }
          return undefined;
        }
        const id = name.slice(0, -RECORD_FILE_SUFFIX.length);
        const record: StateRecord = {
          stream,
          id,
          writtenAtMs: parseRecordId(id) ?? 0,
          data: parsed.data,
        };
        return this.#cache.set(filePath, record, verdict.text.length);
      }
    }
  }
}
