// Real etcd servers for the etcd backend's tests: Debian's `etcd` binary on random loopback ports
// with a temporary data directory, one member or a cluster of several, plain http or https (a
// server certificate and, optionally, required client certificates). Readiness is the server's
// own "ready to serve client requests" line, never a sleep. Started once per test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { systemClock } from '../../common/index.js';
import { freePort } from '../../common/testing.js';
import { JsonHttpClient, type TlsOptions } from '../json-http.js';

export interface EtcdTls {
  readonly caPath: string;
  readonly certPath: string;
  readonly keyPath: string;
  /** Require client certificates (--client-cert-auth). */
  readonly clientCertAuth?: boolean;
}

export interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly process: ChildProcess;
  /** SIGSTOP / SIGCONT / SIGKILL. */
  pause(): void;
  resume(): void;
  kill(): Promise<void>;
}

export interface EtcdCluster {
  readonly members: readonly EtcdMember[];
  readonly endpoints: readonly string[];
  stop(): Promise<void>;
}

export async function startEtcd(size: number, tls?: EtcdTls): Promise<EtcdCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'yacron2-etcd-'));
  const scheme = tls ? 'https' : 'http';
  const ports = await Promise.all(Array.from({ length: size * 2 }, () => freePort()));
  const names = Array.from({ length: size }, (_, i) => `m${i}`);
  const peerUrl = (i: number): string => `http://127.0.0.1:${ports[size + i]}`;
  const clientUrl = (i: number): string => `${scheme}://127.0.0.1:${ports[i]}`;
  const initial = names.map((name, i) => `${name}=${peerUrl(i)}`).join(',');
  const members = names.map((name, i) => {
    const args = [
      '--name',
      name,
      '--data-dir',
      path.join(dir, name),
      '--listen-client-urls',
      clientUrl(i),
      '--advertise-client-urls',
      clientUrl(i),
      '--listen-peer-urls',
      peerUrl(i),
      '--initial-advertise-peer-urls',
      peerUrl(i),
      '--initial-cluster',
      initial,
      '--initial-cluster-state',
      'new',
      '--initial-cluster-token',
      path.basename(dir),
      '--logger',
      'zap',
      '--log-outputs',
      'stderr',
      '--heartbeat-interval',
      '50',
      '--election-timeout',
      '500',
      ...(tls
        ? [
            '--cert-file',
            tls.certPath,
            '--key-file',
            tls.keyPath,
            // etcd asks for client certificates whenever it has a trusted CA.
            ...(tls.clientCertAuth ? ['--trusted-ca-file', tls.caPath, '--client-cert-auth'] : []),
          ]
        : []),
    ];
    const child = spawn('etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    return { name, clientUrl: clientUrl(i), child };
  });
  await Promise.all(members.map((member) => ready(member.child)));
  const running: EtcdMember[] = members.map(({ name, clientUrl: url, child }) => ({
    name,
    clientUrl: url,
    process: child,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    kill: () => killed(child),
  }));
  return {
    members: running,
    endpoints: running.map((member) => member.clientUrl),
    async stop() {
      for (const member of running) member.resume();
      await Promise.all(running.map((member) => member.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let log = '';
    const timer = systemClock.setTimer(() => {
      child.kill('SIGKILL');
      reject(new Error(`etcd did not become ready within 60 s:\n${log.slice(-2000)}`));
    }, 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (/ready to serve client requests|serving client traffic/.test(log)) {
        timer.cancel();
        resolve();
      }
      if (log.length > 1 << 20) log = log.slice(-4096);
    });
    child.once('exit', (code) => {
      timer.cancel();
      reject(new Error(`etcd exited with ${code}:\n${log.slice(-2000)}`));
    });
  });
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Turn auth on through the gateway: a root user with this password. */
export async function enableEtcdAuth(
  endpoint: string,
  password: string,
  tls: TlsOptions,
): Promise<void> {
  const http = new JsonHttpClient(systemClock, tls);
  try {
    const post = async (p: string, body: object): Promise<void> => {
      const reply = await http.request({
        method: 'POST',
        url: `${endpoint}${p}`,
        body: JSON.stringify(body),
        timeoutMs: 10_000,
      });
      if (reply.status !== 200) {
        throw new Error(`${p}: HTTP ${reply.status} ${JSON.stringify(reply.json)}`);
      }
    };
    await post('/v3/auth/role/add', { name: 'root' });
    await post('/v3/auth/user/add', { name: 'root', password });
    await post('/v3/auth/user/grant', { user: 'root', role: 'root' });
    await post('/v3/auth/enable', {});
  } finally {
    http.close();
  }
}
