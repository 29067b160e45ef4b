// How the Kubernetes lease client reaches the apiserver (docs/clustering.md "Kubernetes"): the
// pod's service account (token re-read before every request, the last good one kept on a read
// error; its CA; its namespace file) or a kubeconfig (current-context; the cluster's server, CA
// file or data, insecure-skip-tls-verify; the user's token, client certificate, exec credential
// plugin (kube-exec-plugin.ts) or an auth-provider's cached token), `apiServer` overriding the
// server either way, and the lease namespace resolved in the documented order.
// Must not: send a bearer token over http://, or put a token into a message.
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { YacronError, describeError, type Clock } from '../../common/index.js';
import { type Logger } from '../../logging/index.js';
import type { TlsOptions } from '../json-http.js';
import { readExecSpec } from './kube-exec-credential.js';
import { ExecCredentialSource } from './kube-exec-plugin.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface KubeAccessSettings {
  readonly kubeconfig: string | null;
  readonly apiServer: string | null;
  readonly leaseNamespace: string | null;
}

export interface KubeAccessEnv {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Expiry of an exec plugin's credential and the bound on its run. */
  readonly clock: Clock;
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
  /**
   * The apiserver answered 401: an exec plugin's kept credential is dropped, so the next token()
   * runs the plugin again (as client-go does); other sources read theirs anew or cannot change.
   */
  rejected(): void;
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
    rejected: () => undefined, // the token file is re-read before every request anyway
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
  const userEntry = named(doc.users, str(context.user), 'user', file);
  const user = obj(userEntry.user);
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
  let token: () => Promise<string | null> = () => Promise.resolve(str(user.token));
  let rejected = (): void => undefined;
  let tlsCert = cert;
  let tlsKey = key;
  const who = `the kubeconfig ${file}, user '${str(userEntry.name) ?? '(unnamed)'}'`;
  if (str(user.token) === null && cert === undefined && user.exec !== undefined) {
    const reading = readExecSpec(user.exec, dir, cluster, base);
    if (reading.kind === 'invalid') {
      throw fail(`Cannot use ${who}: ${reading.field} ${reading.problem}`);
    }
    const source = new ExecCredentialSource(reading.spec, {
      clock: services.clock,
      env: services.env,
      where: who,
    });
    // Run once now: a plugin that cannot work fails the start, not the first round, and a
    // client certificate it gives is the connection's (read at start, see docs/clustering.md).
    const first = await source.credential();
    tlsCert = first.cert;
    tlsKey = first.key;
    if (first.token !== null) {
      token = async () => (await source.credential()).token;
      rejected = () => source.forget();
    }
  } else if (
    str(user.token) === null &&
    cert === undefined &&
    user['auth-provider'] !== undefined
  ) {
    const cached = authProviderToken(user['auth-provider'], who, services.clock);
    token = () => Promise.resolve(cached);
  }
  if ((await token()) !== null && !/^https:\/\//i.test(base)) {
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
      ...(tlsCert && { cert: tlsCert }),
      ...(tlsKey && { key: tlsKey }),
      ...(insecure && { rejectUnauthorized: false }),
    },
    token,
    rejected,
    files,
  };
}

/**
 * The token an auth-provider (gcp, oidc, azure; removed from kubectl in 1.26) left in the
 * kubeconfig: `id-token` (oidc) or `access-token` (gcp, azure), refused once its `expiry` is past.
 * Refreshing it needs the provider's own client, which the exec plugins replaced.
 */
function authProviderToken(provider: unknown, who: string, clock: Clock): string {
  const block = obj(provider);
  const name = str(block.name) ?? '(unnamed)';
  const config = obj(block.config);
  const cached = str(config['id-token']) ?? str(config['access-token']);
  const switchHint =
    'switch the user to its exec credential plugin (gke-gcloud-auth-plugin, kubelogin, aws eks get-token) or a token';
  if (cached === null) {
    throw fail(
      `Cannot use ${who}: its auth-provider '${name}' has no cached id-token or access-token to send, and this build cannot refresh one; ${switchHint}`,
    );
  }
  const expiry = str(config.expiry);
  if (expiry !== null) {
    const at = Date.parse(expiry);
    if (!Number.isFinite(at) || clock.now() >= at) {
      throw fail(
        `Cannot use ${who}: the token its auth-provider '${name}' cached expired (${expiry}), and this build cannot refresh it; ${switchHint}`,
      );
    }
  }
  return cached;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
