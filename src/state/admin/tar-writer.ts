// A minimal streaming .tar.gz writer over tar's own header encoders: every member is written from
// bytes already read, so a file that vanishes between listing and reading is simply not added
// (tar's Pack would abort the whole archive). Also used by tests to build hostile archives.
import { YacronError } from '../../common/index.js';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip, type Gzip } from 'node:zlib';
import { Header, Pax } from 'tar';

export type TarMemberType =
  'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'BlockDevice' | 'FIFO';

export interface TarMember {
  readonly path: string;
  readonly type?: TarMemberType;
  readonly bytes?: Uint8Array;
  readonly linkpath?: string;
  readonly mode?: number;
  readonly mtime?: Date;
}

const BLOCK = 512;

export class TarGzWriter {
  readonly #gzip: Gzip;
  readonly #done: Promise<void>;

  /** Create (exclusively) `file` with `mode`; call finish() to complete it. */
  constructor(file: string, mode = 0o600) {
    this.#gzip = createGzip();
    const out = createWriteStream(file, { flags: 'wx', mode });
    this.#gzip.pipe(out);
    this.#done = Promise.race([
      once(out, 'close').then(() => undefined),
      once(out, 'error').then(([error]) => Promise.reject(error as Error)),
      once(this.#gzip, 'error').then(([error]) => Promise.reject(error as Error)),
    ]);
    // The race settles on the first event; keep the losers from surfacing as unhandled.
    this.#done.catch(() => undefined);
  }

  async add(member: TarMember): Promise<void> {
    const type = member.type ?? 'File';
    const bytes = type === 'File' ? (member.bytes ?? new Uint8Array()) : new Uint8Array();
    const data = {
      path: member.path,
      mode: member.mode ?? (type === 'Directory' ? 0o700 : 0o600),
      size: bytes.length,
      mtime: member.mtime ?? new Date(0),
      type,
      linkpath: member.linkpath ?? '',
      uname: '',
      gname: '',
    };
    const header = new Header(data);
    if (header.encode()) {
      // A path or link over 100 bytes needs a pax extended header first.
      const pax = new Pax({
        path: member.path,
        size: bytes.length,
        mtime: data.mtime,
        ...(member.linkpath === undefined ? {} : { linkpath: member.linkpath }),
      });
      await this.#write(pax.encode());
    }
    if (!header.block)
      throw new YacronError(
        'YC_ERR_STATE_ADMIN_FAILED',
        `cannot encode a tar header for ${member.path}`,
      );
    await this.#write(header.block);
    if (bytes.length > 0) {
      await this.#write(bytes);
      const pad = (BLOCK - (bytes.length % BLOCK)) % BLOCK;
      if (pad > 0) await this.#write(new Uint8Array(pad));
    }
  }

  /** Write the end-of-archive marker and wait until the file is closed. */
  async finish(): Promise<void> {
    await this.#write(new Uint8Array(BLOCK * 2));
    this.#gzip.end();
    await this.#done;
  }

  /** Abandon the archive (the caller deletes the partial file). */
  async abort(): Promise<void> {
    this.#gzip.end();
    await this.#done.catch(() => undefined);
  }

  async #write(chunk: Uint8Array): Promise<void> {
    if (!this.#gzip.write(chunk)) {
      await Promise.race([once(this.#gzip, 'drain'), this.#done]);
    }
  }
}
