// The cluster's mTLS material (docs/clustering.md "Certificates"): loading the CA bundle, the
// node certificate and key as both TLS contexts would (a dry run that catches a half-written
// rotation), the (mtime, size) snapshot that detects an in-place renewal, and the `-v` check.
// Must not: accept a CA file without a complete certificate (Node silently ignores garbage there).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { YacronError, describeError } from '../common/index.js';
import type { ClusterTlsPaths } from '../config/index.js';

export interface TlsMaterial {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** Every certificate of a PEM bundle; throws when a block is cut short or none is complete. */
export function parseCaBundle(pem: string): X509Certificate[] {
  const begins = pem.match(/-----BEGIN [A-Z0-9 ]+-----/g)?.length ?? 0;
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  if (blocks.length !== begins)
    throw new Error('a PEM block is not terminated (a half-written file?)');
  const certificates = blocks
    .filter((block) => block[1] === 'CERTIFICATE')
    .map((block) => new X509Certificate(block[0]));
  if (certificates.length === 0) throw new Error('no PEM certificate found');
  return certificates;
}

/**
 * Read the three files and build the TLS context both the listener and the poller use: fails on
 * an unreadable file, an unparsable PEM, or a key that does not match the certificate.
 */
export async function loadTlsMaterial(paths: ClusterTlsPaths): Promise<TlsMaterial> {
  const read = async (role: string, file: string): Promise<Buffer> => {
    try {
      return await readFile(file);
    } catch (error) {
      throw tlsError(role, file, describeError(error), error);
    }
  };
  const [ca, cert, key] = await Promise.all([
    read('CA', paths.ca),
    read('certificate', paths.cert),
    read('key', paths.key),
  ]);
  try {
    parseCaBundle(ca.toString('utf8'));
  } catch (error) {
    throw tlsError('CA', paths.ca, describeError(error), error);
  }
  try {
    createSecureContext({ ca, cert, key, minVersion: 'TLSv1.2' });
  } catch (error) {
    throw tlsError('certificate/key', `${paths.cert}, ${paths.key}`, describeError(error), error);
  }
  return { ca, cert, key };
}

function tlsError(role: string, file: string, reason: string, cause: unknown): YacronError {
  return new YacronError(
    'YC_ERR_CLUSTER_TLS',
    `Cannot load the cluster TLS ${role} ${file}: ${reason}`,
    { cause },
  );
}

/** (mtime in ns, size) per file; null = could not stat (compares unequal to anything). */
export type TlsFileSnapshot = Readonly<Record<keyof ClusterTlsPaths, string | null>>;

/** `<mtime ns>:<size>` of a file (stat follows symlinks); null when it cannot be stat'ed. */
async function fileStamp(file: string): Promise<string | null> {
  try {
    const info = await stat(file, { bigint: true });
    return `${info.mtimeNs}:${info.size}`;
  } catch {
    return null;
  }
}

export async function snapshotTlsFiles(paths: ClusterTlsPaths): Promise<TlsFileSnapshot> {
  const [ca, cert, key] = await Promise.all([
    fileStamp(paths.ca),
    fileStamp(paths.cert),
    fileStamp(paths.key),
  ]);
  return { ca, cert, key };
}

/** The stamps of `files`, in order (a missing file stamps as null, so it compares unequal). */
export function snapshotFiles(files: readonly string[]): Promise<readonly (string | null)[]> {
  return Promise.all(files.map(fileStamp));
}

/** Both snapshots are complete and equal (a missing file never counts as unchanged). */
export function sameFiles(a: readonly (string | null)[], b: readonly (string | null)[]): boolean {
  return a.length === b.length && a.every((stamp, i) => stamp !== null && stamp === b[i]);
}

export function sameTlsFiles(a: TlsFileSnapshot, b: TlsFileSnapshot): boolean {
  return (['ca', 'cert', 'key'] as const).every(
    (role) => a[role] !== null && b[role] !== null && a[role] === b[role],
  );
}

export interface TlsValidation {
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/**
 * `-v`: load what is present (an unparsable PEM or a key that does not match the certificate is
 * an error); a file absent on the validating machine (mounted only at run time) is a warning.
 */
export async function validateTlsFiles(
  paths: ClusterTlsPaths,
  what = 'cluster.tls',
): Promise<TlsValidation> {
  const errors: string[] = [];
  const warnings: string[] = [];
  const texts: Partial<Record<keyof ClusterTlsPaths, Buffer>> = {};
  for (const role of ['ca', 'cert', 'key'] as const) {
    try {
      texts[role] = await readFile(paths[role]);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        warnings.push(`${what}.${role} ${paths[role]} does not exist here; it is not checked`);
      } else {
        errors.push(`${what}.${role} ${paths[role]} cannot be read: ${describeError(error)}`);
      }
    }
  }
  const check = (role: keyof ClusterTlsPaths, parse: (bytes: Buffer) => unknown): void => {
    const bytes = texts[role];
    if (bytes === undefined) return;
    try {
      parse(bytes);
    } catch (error) {
      errors.push(`${what}.${role} ${paths[role]} is not usable: ${describeError(error)}`);
      delete texts[role];
    }
  };
  check('ca', (bytes) => parseCaBundle(bytes.toString('utf8')));
  check('cert', (bytes) => parseCaBundle(bytes.toString('utf8')));
  check('key', (bytes) => createPrivateKey(bytes));
  if (texts.cert !== undefined && texts.key !== undefined) {
    try {
      createSecureContext({ cert: texts.cert, key: texts.key });
    } catch (error) {
      errors.push(
        `${what}.key ${paths.key} does not match ${what}.cert ${paths.cert}: ${describeError(error)}`,
      );
    }
  }
  return { errors, warnings };
}
