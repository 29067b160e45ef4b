// How the Kubernetes lease client reaches the apiserver (docs/clustering.md "Kubernetes"): the
// pod's service account (token re-read before every request, the last good one kept on a read
// error; its CA; its namespace file) or a kubeconfig (current-context; the cluster's server, CA
// file or data, insecure-skip-tls-verify; the user's token or client certificate), `apiServer`
// overriding the server either way, and the lease namespace resolved in the documented order.
// Must not: send a bearer token over http://, or put a token into a message.
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { YacronError, describeError, type Logger } from '../../common/index.js';
import type { TlsOptions } from '../json-http.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface KubeAccessSettings {
  readonly kubeconfig: string | null;
  readonly apiServer: string | null;
  readonly leaseNamespace: string | null;
}

export interface KubeAccessEnv {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** The service-account directory (a seam for tests). */
  readonly serviceAccountDir?: string;
}

export interface KubeAccess {
  /** `https://host:port` (no trailing slash). */
  readonly base: string;
  readonly namespace: string;
  readonly tls: TlsOptions;
  /** The bearer token for the next request, or null (client certificate only). */
  token(): Promise<string | null>;
  /** The kubeconfig and the files it names, or the service account's CA (rotation is tracked). */
  readonly files: readonly string[];
}

const fail = (message: string): YacronError =>
  new YacronError('YC_ERR_CLUSTER_CREDENTIALS', message);

export function resolveKubeAccess(
  settings: KubeAccessSettings,
  services: KubeAccessEnv,
): Promise<KubeAccess> {
  return settings.kubeconfig === null
    ? inCluster(settings, services)
    : fromKubeconfig(settings.kubeconfig, settings, services);
}

async function inCluster(
  settings: KubeAccessSettings,
  services: KubeAccessEnv,
): Promise<KubeAccess> {
  const dir = services.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  let base = settings.apiServer;
  if (base === null) {
    const host = services.env.KUBERNETES_SERVICE_HOST;
    if (host === undefined || host === '') {
      throw fail(
        'Cannot find the Kubernetes apiserver: not running in a pod (KUBERNETES_SERVICE_HOST is unset) and no cluster.kubernetes.kubeconfig or apiServer is configured',
      );
    }
    const port = services.env.KUBERNETES_SERVICE_PORT || '443';
    base = `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  }
  if (!/^https:\/\//i.test(base)) {
    throw fail(`Cannot use the apiserver at ${base}: in-cluster credentials need an https:// URL`);
  }
  const tokenPath = path.join(dir, 'token');
  let lastGood: string | null = null;
  const token = async (): Promise<string | null> => {
    try {
      lastGood = (await readFile(tokenPath, 'utf8')).trim();
    } catch (error) {
      if (lastGood === null) {
        throw fail(`Cannot read the service-account token ${tokenPath}: ${describeError(error)}`);
      }
    }
    return lastGood;
  };
  await token();
  const ca = await readFile(path.join(dir, 'ca.crt')).catch((error: unknown) => {
    throw fail(
      `Cannot read the service-account CA ${path.join(dir, 'ca.crt')}: ${describeError(error)}`,
    );
  });
  let namespace = settings.leaseNamespace;
  if (namespace === null) {
    namespace = await readFile(path.join(dir, 'namespace'), 'utf8').then(
      (text) => text.trim() || null,
      () => null,
    );
  }
  return {
    base: trimSlash(base),
    namespace: namespace ?? 'default',
    tls: { ca },
    token,
    files: [path.join(dir, 'ca.crt')],
  };
}

type Yaml = Record<string, unknown>;
const obj = (value: unknown): Yaml =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Yaml) : {};
const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

function named(list: unknown, name: string | null, what: string, file: string): Yaml {
  const entries = Array.isArray(list) ? list.map(obj) : [];
  const found = name === null ? entries[0] : entries.find((entry) => entry.name === name);
  if (found === undefined) {
    throw fail(
      `Cannot use the kubeconfig ${file}: it has no ${what}${name === null ? '' : ` named '${name}'`}`,
    );
  }
  return found;
}

async function fromKubeconfig(
  file: string,
  settings: KubeAccessSettings,
  services: KubeAccessEnv,
): Promise<KubeAccess> {
  let doc: Yaml;
  try {
    doc = obj(parseYaml(await readFile(file, 'utf8')));
  } catch (error) {
    throw fail(`Cannot read the kubeconfig ${file}: ${describeError(error)}`);
  }
  const dir = path.dirname(file);
  const resolvePath = (p: string): string => path.resolve(dir, p);
  const contextEntry = named(doc.contexts, str(doc['current-context']), 'context', file);
  const context = obj(contextEntry.context);
  const cluster = obj(named(doc.clusters, str(context.cluster), 'cluster', file).cluster);
  const user = obj(named(doc.users, str(context.user), 'user', file).user);
  const base = settings.apiServer ?? str(cluster.server);
  if (base === null) throw fail(`Cannot use the kubeconfig ${file}: its cluster has no server`);
  const files = [file];
  const readPem = async (dataKey: string, fileKey: string): Promise<Buffer | undefined> => {
    const data = str(cluster[dataKey] ?? user[dataKey]);
    if (data !== null) return Buffer.from(data, 'base64');
    const ref = str(cluster[fileKey] ?? user[fileKey]);
    if (ref === null) return undefined;
    files.push(resolvePath(ref));
    try {
      return await readFile(resolvePath(ref));
    } catch (error) {
      throw fail(
        `Cannot read ${fileKey} ${resolvePath(ref)} named by ${file}: ${describeError(error)}`,
      );
    }
  };
  const ca = await readPem('certificate-authority-data', 'certificate-authority');
  const cert = await readPem('client-certificate-data', 'client-certificate');
  const key = await readPem('client-key-data', 'client-key');
  const token = str(user.token);
  if (
    token === null &&
    cert === undefined &&
    (user.exec !== undefined || user['auth-provider'] !== undefined)
  ) {
    throw fail(
      `Cannot use the kubeconfig ${file}: its user authenticates with exec or auth-provider, which this build cannot run; use a token or a client certificate (the reference would need its optional native client installed)`,
    );
  }
  if (token !== null && !/^https:\/\//i.test(base)) {
    throw fail(`Cannot send a bearer token to ${base}: the kubeconfig's server is not https://`);
  }
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  if (insecure) {
    services.logger.warn(
      `cluster: kubeconfig ${file} sets insecure-skip-tls-verify; the apiserver's certificate is not verified`,
    );
  }
  const namespace = settings.leaseNamespace ?? str(context.namespace) ?? 'default';
  return {
    base: trimSlash(base),
    namespace,
    tls: {
      ...(ca && { ca }),
      ...(cert && { cert }),
      ...(key && { key }),
      ...(insecure && { rejectUnauthorized: false }),
    },
    token: () => Promise.resolve(token),
    files,
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
