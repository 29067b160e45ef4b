// Content-addressed blobs in the reference's layout (docs/durable-state-store.md "Blobs"):
// blobs/<h[0:2]>/<h>.blob, h = lower-case hex sha256 of the bytes, written through tmp/ and
// renamed into place, so identical bytes land once. The file's mtime is the blob's age for GC:
// putting bytes that are already stored only touches it. With fsyncRecords the blob, its shard
// directory and a new shard's parent are fsynced. A blob path that is not a regular file, or
// whose bytes no longer match its name, is moved to quarantine/ on read.
import { createHash } from 'node:crypto';
import { constants, lstat, open, unlink, utimes } from 'node:fs/promises';
import * as path from 'node:path';
import { YacronError, describeError } from '../common/index.js';
import type { FsContext } from './fs-context.js';
import { ensureOwnDir, errorCode, placeTemp, readdirOrEmpty, writeTemp } from './fs-files.js';
import { assertSha256, isSha256 } from './record-format.js';
import type { BlobInfo, QuarantineReason } from './types.js';

export const BLOB_SUFFIX = '.blob';
const SHARD = /^[0-9a-f]{2}$/;

export class FsBlobs {
  readonly #ctx: FsContext;

  constructor(ctx: FsContext) {
    this.#ctx = ctx;
  }

  #path(sha256: string): { shard: string; file: string } {
    assertSha256(sha256);
    const shard = path.join(this.#ctx.layout.blobs, sha256.slice(0, 2));
    return { shard, file: path.join(shard, `${sha256}${BLOB_SUFFIX}`) };
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { shard, file } = this.#path(sha256);
    const nowSeconds = this.#ctx.clock.now() / 1000;
    const existing = await lstat(file).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (existing?.isFile()) {
      await utimes(file, nowSeconds, nowSeconds);
      return sha256; // already stored: refreshing its age is the whole write
    }
    if (existing !== undefined) await this.#quarantine(file, 'not-a-file', 'not a regular file');
    const durable = this.#ctx.fsyncRecords;
    await ensureOwnDir(shard, { durable, syncDir: this.#ctx.syncDir });
    const tmpPath = await writeTemp(this.#ctx.layout.tmp, this.#ctx.seq.nextTemp(), bytes, {
      durable,
      mtimeMs: this.#ctx.clock.now(),
    });
    await placeTemp(tmpPath, file);
    if (durable) await this.#ctx.syncDir(shard);
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | undefined> {
    const { file } = this.#path(sha256);
    let handle;
    try {
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      if (code === 'ELOOP') {
        await this.#quarantine(file, 'not-a-file', 'a symbolic link');
        return undefined;
      }
      throw new YacronError(
        'YC_ERR_STATE_IO',
        `Cannot read blob ${file}: ${describeError(error)}`,
        {
          cause: error,
        },
      );
    }
    let bytes: Buffer;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        handle = undefined;
        await this.#quarantine(file, 'not-a-file', 'not a regular file');
        return undefined;
      }
      bytes = await handle.readFile();
    } finally {
      await handle?.close();
    }
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) {
      await this.#quarantine(file, 'digest-mismatch', 'content does not match its sha256');
      return undefined;
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  #quarantine(file: string, reason: QuarantineReason, detail: string): Promise<void> {
    return this.#ctx.quarantine.move(file, reason, detail);
  }

  async has(sha256: string): Promise<boolean> {
    try {
      return (await lstat(this.#path(sha256).file)).isFile();
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw error;
    }
  }

  async delete(sha256: string): Promise<boolean> {
    try {
      await unlink(this.#path(sha256).file);
      return true;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw error;
    }
  }

  async list(): Promise<BlobInfo[]> {
    const out: BlobInfo[] = [];
    for (const { shard, sha256 } of await this.#files()) {
      try {
        const stats = await lstat(
          path.join(this.#ctx.layout.blobs, shard, `${sha256}${BLOB_SUFFIX}`),
        );
        if (stats.isFile()) {
          out.push({ sha256, sizeBytes: stats.size, modifiedAtMs: Math.round(stats.mtimeMs) });
        }
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    }
    return out.sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1));
  }

  async count(): Promise<number> {
    return (await this.#files()).length;
  }

  /** Every `<sha256>.blob` in the shard its name belongs to. */
  async #files(): Promise<{ shard: string; sha256: string }[]> {
    const found: { shard: string; sha256: string }[] = [];
    for (const shard of await readdirOrEmpty(this.#ctx.layout.blobs)) {
      if (!SHARD.test(shard)) continue;
      for (const entry of await readdirOrEmpty(path.join(this.#ctx.layout.blobs, shard))) {
        const sha256 = entry.slice(0, -BLOB_SUFFIX.length);
        if (entry.endsWith(BLOB_SUFFIX) && isSha256(sha256) && sha256.startsWith(shard)) {
          found.push({ shard, sha256 });
        }
      }
    }
    return found;
  }
}
