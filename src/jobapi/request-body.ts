// Reading a job API request's body under its route's cap (docs/http-api.md "Job API limits"): a
// JSON body into memory, an artifact upload streamed to a temp file with its sha256 computed on
// the way (never the whole payload in memory while it arrives). Over the cap is a bare 413 as
// soon as it is known, declared Content-Length included. Must not: leave a temp file behind.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { ResolvedJobApi } from '../config/index.js';
import { DEFAULT_MAX_RECORD_BYTES } from '../state/index.js';
import { ApiError } from './api-error.js';
import type { RouteBody } from './route-types.js';

/** A received upload: a temp file the caller removes once done with it. */
export interface Upload {
  readonly path: string;
  readonly size: number;
  /** Lower-case hex sha256 of the bytes. */
  readonly sha256: string;
}

const EMPTY = Buffer.alloc(0);

/** The body cap of each kind of route, in bytes; null = unlimited. */
export type BodyCaps = Readonly<Record<Exclude<RouteBody, 'none'>, number | null>>;

/** Room for a request's names, scope and flags around its value or payload. */
export const BODY_SLACK_BYTES = 64 * 1024;

/**
 * Each route kind's body cap: a small JSON object gets the slack only; a JSON body carrying a
 * value 6 times the largest legal value (a compact encoding of maxValueBytes written with
 * \u escapes; no value can exceed one store record either) plus the slack; an upload
 * maxArtifactBytes plus the slack (so an upload slightly over answers with its exact size), or
 * no cap when artifacts are unlimited.
 */
export function bodyCapsOf(settings: ResolvedJobApi): BodyCaps {
  const largestValue = Math.min(settings.maxValueBytes ?? Infinity, DEFAULT_MAX_RECORD_BYTES);
  return {
    json: BODY_SLACK_BYTES,
    'json-value': 6 * largestValue + BODY_SLACK_BYTES,
    upload:
      settings.maxArtifactBytes === null ? null : settings.maxArtifactBytes + BODY_SLACK_BYTES,
  };
}

function tooLarge(capBytes: number): ApiError {
  return new ApiError(
    'YC_ERR_REQUEST_TOO_LARGE',
    `request body is over the ${capBytes}-byte limit`,
    {
      bare: true,
      closeConnection: true,
    },
  );
}

/** The Content-Length the client declared, or null (chunked, absent, garbage). */
export function declaredLength(req: IncomingMessage): number | null {
  const declared = Number(req.headers['content-length']);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
}

/** The whole body, or a bare 413 as soon as it is known to be over the cap (null = none). */
export function readBody(req: IncomingMessage, capBytes: number | null): Promise<Buffer> {
  const declared = declaredLength(req);
  if (capBytes !== null && declared !== null && declared > capBytes) {
    return Promise.reject(tooLarge(capBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (capBytes !== null && size > capBytes) {
        req.off('data', onData);
        chunks.length = 0;
        req.resume();
        reject(tooLarge(capBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] ?? EMPTY) : Buffer.concat(chunks, size)),
    );
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('the client went away before the body was complete'));
    });
  });
}

/**
 * Stream the body to a new 0600 file in `dir`, hashing it as it goes. Over `capBytes` (null =
 * none), a client that goes away or a write error removes the file and rejects.
 */
export function receiveUpload(
  req: IncomingMessage,
  dir: string,
  capBytes: number | null,
): Promise<Upload> {
  const declared = declaredLength(req);
  if (capBytes !== null && declared !== null && declared > capBytes) {
    return Promise.reject(tooLarge(capBytes));
  }
  const path = join(dir, `upload-${randomBytes(12).toString('hex')}`);
  const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  const hash = createHash('sha256');
  let size = 0;
  return new Promise<Upload>((resolve, reject) => {
    let failed = false;
    const fail = (error: Error): void => {
      if (failed) return;
      failed = true;
      req.off('data', onData);
      req.resume();
      file.destroy();
      // The open may still be in flight: remove the file once the stream is done with it.
      file.once('close', () => void unlink(path).catch(() => undefined));
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (capBytes !== null && size > capBytes) {
        fail(tooLarge(capBytes));
        return;
      }
      hash.update(chunk);
      if (!file.write(chunk)) {
        req.pause();
        file.once('drain', () => req.resume());
      }
    };
    req.on('data', onData);
    req.once('end', () => {
      if (failed) return;
      file.end(() => {
        if (!failed) resolve({ path, size, sha256: hash.digest('hex') });
      });
    });
    req.once('error', fail);
    req.once('close', () => {
      if (!req.complete) fail(new Error('the client went away before the upload was complete'));
    });
    file.once('error', fail);
  });
}
