// An in-test Kubernetes apiserver for the Lease backend (node:https on 127.0.0.1 with a test CA):
// GET/POST/PUT of coordination.k8s.io/v1 Leases with resourceVersion optimistic concurrency (a
// stale or missing version on PUT, or a POST of an existing name, answers 409) and a bearer token
// check (401). A test can force the next write to conflict. It is not a real apiserver: the
// docs say plainly that none ran in CI.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { TestCa } from '../../cluster/testing.js';

export interface StoredLease {
  metadata: Record<string, unknown> & { resourceVersion: string };
  spec: Record<string, unknown>;
}

export interface FakeApiserver {
  readonly url: string;
  readonly leases: Map<string, StoredLease>;
  /** Requests as `METHOD path`, in order. */
  readonly requests: string[];
  /** The next write answers 409 (after bumping the version, as a racing writer would). */
  conflictNext: boolean;
  /** Write a kubeconfig for this server and return its path. */
  kubeconfig(options?: { namespace?: string; token?: string }): string;
  close(): Promise<void>;
}

const PREFIX = '/apis/coordination.k8s.io/v1/namespaces/';

export async function startApiserver(ca: TestCa, token: string): Promise<FakeApiserver> {
  const cert = ca.issue('apiserver', ['IP:127.0.0.1', 'DNS:localhost']);
  const leases = new Map<string, StoredLease>();
  const requests: string[] = [];
  let version = 100;
  const state = { conflictNext: false };

  const handle = (req: IncomingMessage, res: ServerResponse, text: string): void => {
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    requests.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(401, { kind: 'Status', code: 401 });
    const url = req.url ?? '';
    if (!url.startsWith(PREFIX)) return send(404, { kind: 'Status', code: 404 });
    const [ns, kind, name] = url.slice(PREFIX.length).split('/').map(decodeURIComponent);
    if (kind !== 'leases') return send(404, { kind: 'Status', code: 404 });
    const key = `${ns}/${name ?? ''}`;
    let body: Record<string, unknown> = {};
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      return send(400, { kind: 'Status', code: 400 });
    }
    const metadata = (body.metadata ?? {}) as Record<string, unknown>;
    const spec = (body.spec ?? {}) as Record<string, unknown>;
    const conflict = (): void => {
      state.conflictNext = false;
      version += 1;
      send(409, { kind: 'Status', code: 409, reason: 'Conflict' });
    };
    switch (req.method ?? '') {
      case 'GET': {
        const lease = leases.get(key);
        return lease
          ? send(200, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease })
          : send(404, { kind: 'Status', code: 404 });
      }
      case 'POST': {
        const created = `${ns}/${String(metadata.name)}`;
        if (state.conflictNext || leases.has(created)) return conflict();
        version += 1;
        const lease = { metadata: { ...metadata, resourceVersion: String(version) }, spec };
        leases.set(created, lease);
        return send(201, lease);
      }
      case 'PUT': {
        const current = leases.get(key);
        if (!current) return send(404, { kind: 'Status', code: 404 });
        if (state.conflictNext) return conflict();
        if (
          metadata.resourceVersion !== undefined &&
          metadata.resourceVersion !== current.metadata.resourceVersion
        ) {
          return conflict();
        }
        version += 1;
        const lease = { metadata: { ...metadata, resourceVersion: String(version) }, spec };
        leases.set(key, lease);
        return send(200, lease);
      }
      default:
        return send(405, { kind: 'Status', code: 405 });
    }
  };

  const server: Server = createServer(
    { cert: readFileSync(cert.certPath), key: readFileSync(cert.keyPath) },
    (req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => handle(req, res, text));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let configs = 0;
  return {
    url,
    leases,
    requests,
    get conflictNext() {
      return state.conflictNext;
    },
    set conflictNext(value: boolean) {
      state.conflictNext = value;
    },
    kubeconfig(options = {}) {
      const file = path.join(ca.dir, `kubeconfig-${++configs}.yaml`);
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'current-context: test',
          'clusters:',
          '  - name: other',
          '    cluster: { server: "https://192.0.2.1:6443" }',
          '  - name: fake',
          '    cluster:',
          `      server: ${url}`,
          `      certificate-authority: ${path.basename(ca.caPath)}`,
          'contexts:',
          '  - name: test',
          '    context:',
          '      cluster: fake',
          '      user: robot',
          ...(options.namespace ? [`      namespace: ${options.namespace}`] : []),
          'users:',
          '  - name: robot',
          '    user:',
          `      token: ${options.token ?? token}`,
          '',
        ].join('\n'),
      );
      return file;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
