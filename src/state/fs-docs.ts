// Mutable documents on disk: docs/<encoded key>.json, replaced whole by atomic rename (readers
// never lock and never see a torn file), with compare-and-set writes serialised by a flock on
// the sibling docs/<encoded key>.lock. Writes are fsynced (file and directory): a document is a
// coordination fact (an idempotency claim, a cursor) that must survive power loss.
import { readdir, unlink } from 'node:fs/promises';
import * as path from 'node:path';
import { YacronError, describeError } from '../common/errors.js';
import type { FsContext } from './fs-context.js';
import { errorCode, readCapped, syncDir, writeAtomic } from './fs-files.js';
import { casHolds } from './lease-logic.js';
import { decodeName, encodeName, isHashedEncoding } from './name-encoding.js';
import { assertJsonValue, parseEnvelope, serializeEnvelope } from './record-format.js';
import { assertRecordSize, filterPrefix, validateStreamName } from './store-checks.js';
import type {
  DeleteDocOptions,
  DocDeleteResult,
  DocEntry,
  DocWriteResult,
  PutDocOptions,
} from './types.js';

const DOC_SUFFIX = '.json';
export const LOCK_SUFFIX = '.lock';

function isDocEntry(data: unknown): data is DocEntry {
  const doc = data as Partial<DocEntry> | null;
  return (
    typeof doc === 'object' &&
    doc !== null &&
    typeof doc.key === 'string' &&
    typeof doc.version === 'string' &&
    typeof doc.updatedAtMs === 'number' &&
    'value' in doc
  );
}

export class FsDocs {
  readonly #ctx: FsContext;

  constructor(ctx: FsContext) {
    this.#ctx = ctx;
  }

  #paths(key: string): { encoded: string; file: string; lock: string } {
    validateStreamName(key, 'document');
    const encoded = encodeName(key, 'document');
    const base = path.join(this.#ctx.layout.docs, encoded);
    return { encoded, file: `${base}${DOC_SUFFIX}`, lock: `${base}${LOCK_SUFFIX}` };
  }

  /** Read a document; a corrupt one is quarantined (reads as absent), an I/O error throws. */
  async #read(encoded: string, file: string): Promise<DocEntry | undefined> {
    const verdict = await readCapped(file, this.#ctx.maxRecordBytes);
    switch (verdict.kind) {
      case 'missing':
        return undefined;
      case 'io-error':
        throw new YacronError('YC_ERR_STATE_IO', `Cannot read document ${file}: ${verdict.detail}`);
      case 'bad':
        await this.#ctx.quarantine.move(
          'docs',
          '',
          `${encoded}${DOC_SUFFIX}`,
          verdict.reason,
          verdict.detail,
        );
        return undefined;
      case 'ok': {
        const parsed = parseEnvelope(verdict.text);
        if (!parsed.ok || !isDocEntry(parsed.data)) {
          const reason = parsed.ok ? 'malformed' : parsed.reason;
          const detail = parsed.ok ? 'not a document' : parsed.detail;
          await this.#ctx.quarantine.move('docs', '', `${encoded}${DOC_SUFFIX}`, reason, detail);
          return undefined;
        }
        return parsed.data;
      }
    }
  }

  async get(key: string): Promise<DocEntry | undefined> {
    const { encoded, file } = this.#paths(key);
    return this.#read(encoded, file);
  }

  async put(key: string, value: unknown, options: PutDocOptions = {}): Promise<DocWriteResult> {
    const { encoded, file, lock } = this.#paths(key);
    assertJsonValue(value, `document ${key}`);
    // Serialise once up front so a non-JSON value fails before taking the lock.
    assertRecordSize(
      serializeEnvelope({ key, value }, `document ${key}`),
      this.#ctx.maxRecordBytes,
      `document ${key}`,
    );
    return this.#ctx.withLock(lock, async () => {
      const current = await this.#read(encoded, file);
      if (!casHolds(current, options.expectedVersion)) return { ok: false, current };
      const next = {
        key,
        value,
        version: this.#ctx.ids.token(),
        updatedAtMs: this.#ctx.clock.now(),
      };
      const text = serializeEnvelope(next, `document ${key}`);
      await writeAtomic(this.#ctx.layout.tmp, `${next.version}.doc.tmp`, file, text, {
        durable: true,
      });
      return { ok: true, version: next.version, updatedAtMs: next.updatedAtMs };
    });
  }

  async delete(key: string, options: DeleteDocOptions = {}): Promise<DocDeleteResult> {
    const { encoded, file, lock } = this.#paths(key);
    return this.#ctx.withLock(lock, async () => {
      const current = await this.#read(encoded, file);
      if (!casHolds(current, options.expectedVersion)) return { ok: false, current };
      if (!current) return { ok: true, existed: false };
      try {
        await unlink(file);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return { ok: true, existed: false };
        throw error;
      }
      await syncDir(this.#ctx.layout.docs);
      return { ok: true, existed: true };
    });
  }

  async list(prefix?: string): Promise<string[]> {
    const keys: string[] = [];
    for (const entry of await this.#entries()) {
      if (!entry.endsWith(DOC_SUFFIX)) continue;
      const encoded = entry.slice(0, -DOC_SUFFIX.length);
      if (!isHashedEncoding(encoded)) {
        const key = decodeName(encoded);
        if (key !== undefined) keys.push(key);
        continue;
      }
      const doc = await this.#read(encoded, path.join(this.#ctx.layout.docs, entry)).catch(
        () => undefined,
      );
      if (doc && encodeName(doc.key) === encoded) keys.push(doc.key);
    }
    return filterPrefix(keys, prefix);
  }

  /** Documents on disk (describe()). */
  async count(): Promise<number> {
    return (await this.#entries()).filter(
      (entry) => entry.endsWith(DOC_SUFFIX) && !entry.startsWith('.'),
    ).length;
  }

  async #entries(): Promise<string[]> {
    try {
      return await readdir(this.#ctx.layout.docs);
    } catch (error) {
      throw new YacronError('YC_ERR_STATE_IO', `Cannot list documents: ${describeError(error)}`, {
        cause: error,
      });
    }
  }
}
