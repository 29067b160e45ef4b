// Test helpers (no tests here): a throwaway cluster CA and per-node certificates made with the
// `openssl` CLI (EC P-256, SHA-256, EKU serverAuth+clientAuth: the shape that works with Python
// nodes too), in a temp directory removed at exit.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const root = mkdtempSync(path.join(tmpdir(), 'yacron2-cluster-tls-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface TestCa {
  readonly dir: string;
  readonly caPath: string;
  /** A leaf for `name` with these SANs (`DNS:x`, `IP:1.2.3.4`); key and cert paths. */
  issue(name: string, sans: readonly string[], options?: { days?: number }): NodeCert;
}

export interface NodeCert {
  readonly certPath: string;
  readonly keyPath: string;
}

/** A fresh CA in its own directory. */
export function makeTestCa(label = 'ca'): TestCa {
  const dir = path.join(root, `${label}-${++counter}`);
  execFileSync('mkdir', ['-p', dir]);
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-sha256',
      '-days',
      '3650',
      '-subj',
      `/CN=yacron2 test ${label}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.pem',
    ],
    dir,
  );
  return {
    dir,
    caPath: path.join(dir, 'ca.pem'),
    issue(name, sans, options = {}) {
      const base = `${name}-${++counter}`;
      writeFileSync(
        path.join(dir, `${base}.ext`),
        [
          `subjectAltName=${sans.join(',')}`,
          'extendedKeyUsage=serverAuth,clientAuth',
          'basicConstraints=CA:FALSE',
          'keyUsage=critical,digitalSignature,keyEncipherment',
        ].join('\n'),
      );
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${base}.key`], dir);
      openssl(
        ['req', '-new', '-key', `${base}.key`, '-subj', `/CN=${name}`, '-out', `${base}.csr`],
        dir,
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${base}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(counter * 1000 + 7),
          '-days',
          String(options.days ?? 30),
          '-sha256',
          '-extfile',
          `${base}.ext`,
          '-out',
          `${base}.pem`,
        ],
        dir,
      );
      return { certPath: path.join(dir, `${base}.pem`), keyPath: path.join(dir, `${base}.key`) };
    },
  };
}
