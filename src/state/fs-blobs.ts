// Content-addressed blobs: blobs/<sha256 hex>, written through tmp/ and renamed into place, so
// identical bytes land once. The file's mtime is the blob's age for GC: re-publishing identical
// bytes refreshes it. A blob whose bytes no longer match its name is quarantined on read.
import { createHash } from 'node:crypto';
import { constants, lstat, open, readdir, unlink, utimes } from 'node:fs/promises';
import * as path from 'node:path';
import { YacronError, describeError } from '../common/errors.js';
import type { FsContext } from './fs-context.js';
import { errorCode, placeTemp, writeTemp } from './fs-files.js';
import { assertSha256 } from './record-format.js';
import type { BlobInfo } from './types.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

export class FsBlobs {
  readonly #ctx: FsContext;

  constructor(ctx: FsContext) {
    this.#ctx = ctx;
  }

  #path(sha256: string): string {
    assertSha256(sha256);
    return path.join(this.#ctx.layout.blobs, sha256);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const target = this.#path(sha256);
    const nowSeconds = this.#ctx.clock.now() / 1000;
    try {
      await utimes(target, nowSeconds, nowSeconds);
      return sha256; // already stored: refreshing its age is the whole write
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    const tmpPath = await writeTemp(
      this.#ctx.layout.tmp,
      `${this.#ctx.ids.token()}.blob.tmp`,
      bytes,
      {
        durable: this.#ctx.fsyncRecords,
        mtimeMs: this.#ctx.clock.now(),
      },
    );
    await placeTemp(tmpPath, target);
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | undefined> {
    const file = this.#path(sha256);
    let handle;
    try {
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') {
        await this.#ctx.quarantine.move('blobs', '', sha256, 'not-a-file', 'a symbolic link');
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
        await this.#ctx.quarantine.move('blobs', '', sha256, 'not-a-file', 'not a regular file');
        return undefined;
      }
      bytes = await handle.readFile();
    } finally {
      await handle?.close();
    }
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) {
      await this.#ctx.quarantine.move(
        'blobs',
        '',
        sha256,
        'digest-mismatch',
        'content does not match its sha256',
      );
      return undefined;
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async has(sha256: string): Promise<boolean> {
    try {
      return (await lstat(this.#path(sha256))).isFile();
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
  }

  async delete(sha256: string): Promise<boolean> {
    try {
      await unlink(this.#path(sha256));
      return true;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
  }

  async list(): Promise<BlobInfo[]> {
    const out: BlobInfo[] = [];
    for (const entry of (await readdir(this.#ctx.layout.blobs)).sort()) {
      if (!SHA256_HEX.test(entry)) continue;
      try {
        const stats = await lstat(path.join(this.#ctx.layout.blobs, entry));
        if (stats.isFile()) {
          out.push({
            sha256: entry,
            sizeBytes: stats.size,
            modifiedAtMs: Math.round(stats.mtimeMs),
          });
        }
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
      }
    }
    return out;
  }

  async count(): Promise<number> {
    return (await readdir(this.#ctx.layout.blobs)).filter((entry) => SHA256_HEX.test(entry)).length;
  }
}
