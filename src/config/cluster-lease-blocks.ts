// The lease backends' store blocks of the `cluster` section (docs/configuration.md "cluster"):
// `kubernetes`, `etcd` (its password resolved once, at load) and `filesystem`: each block's table
// (its typed shape is inferred from it; cluster-schema.ts puts the tables in CLUSTER_SCHEMA) and
// its checks, with the reference's messages. Parsing and validation only; the backends run
// elsewhere.
// Must not: put a credential into any message (URLs are shown with userinfo redacted).
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describeIoError } from './source-files.js';
import { deploymentIdProblem } from './state-section.js';
import { SECRET_SOURCE, type TypedSecretSource } from './report-schema.js';
import { emptyNone, float, int, map, oneOf, opt, seq, str, type MapOut } from './schema-nodes.js';

export interface ResolvedKubernetesBlock {
  readonly leaseName: string;
  /** null = the pod's own namespace, resolved when the backend starts. */
  readonly leaseNamespace: string | null;
  readonly leaseDurationSeconds: number;
  readonly renewDeadlineSeconds: number;
  readonly retryPeriodSeconds: number;
  /** The display identity (default: nodeName). */
  readonly identity: string;
  readonly kubeconfig: string | null;
  readonly apiServer: string | null;
  readonly clientLibrary: 'auto' | 'http' | 'library';
}

export interface ResolvedEtcdBlock {
  readonly endpoints: readonly string[];
  readonly electionName: string;
  readonly ttlSeconds: number;
  readonly username: string | null;
  /** Resolved at load. Never logged. */
  readonly password: string | null;
  /** The variable `password.fromEnvVar` names, as written: kept out of job environments. */
  readonly passwordEnvVar: string | null;
  readonly tls: {
    readonly ca: string | null;
    readonly cert: string | null;
    readonly key: string | null;
  };
}

export interface ResolvedFilesystemBlock {
  readonly path: string;
  readonly electionName: string;
  readonly ttlSeconds: number;
  readonly deploymentId: string | null;
  readonly topology: 'auto' | 'single-node' | 'shared';
}

/** `cluster.kubernetes`, as the walker types it. */
export const KUBERNETES_BLOCK = map({
  leaseName: opt(str),
  leaseNamespace: opt(emptyNone(str)),
  leaseDurationSeconds: opt(int),
  renewDeadlineSeconds: opt(int),
  retryPeriodSeconds: opt(int),
  identity: opt(emptyNone(str)),
  kubeconfig: opt(emptyNone(str)),
  apiServer: opt(emptyNone(str)),
  clientLibrary: opt(oneOf(['auto', 'http', 'library'])),
});

/** `cluster.etcd` (its password is a secret source: value, fromFile or fromEnvVar). */
export const ETCD_BLOCK = map({
  endpoints: opt(seq(str)),
  electionName: opt(str),
  ttl: opt(int),
  username: opt(emptyNone(str)),
  password: opt(SECRET_SOURCE),
  tls: opt(map({ ca: opt(emptyNone(str)), cert: opt(emptyNone(str)), key: opt(emptyNone(str)) })),
});

/** `cluster.filesystem`. */
export const FILESYSTEM_BLOCK = map({
  path: opt(str),
  electionName: opt(str),
  ttl: opt(float),
  deploymentId: opt(emptyNone(str)),
  topology: opt(oneOf(['auto', 'single-node', 'shared'])),
});

export type TypedKubernetesBlock = MapOut<typeof KUBERNETES_BLOCK.fields>;
export type TypedEtcdBlock = MapOut<typeof ETCD_BLOCK.fields>;
export type TypedFilesystemBlock = MapOut<typeof FILESYSTEM_BLOCK.fields>;

/** A problem at a key of the block (`key` = '' for the block itself). */
export interface BlockProblem {
  readonly key: string;
  readonly message: string;
}

export type BlockResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problems: BlockProblem[] };

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function resolveKubernetesBlock(
  typed: TypedKubernetesBlock,
  nodeName: string,
): BlockResult<ResolvedKubernetesBlock> {
  const problems: BlockProblem[] = [];
  const leaseName = typed.leaseName ?? 'yacron2-leader';
  if (leaseName.length > 253 || !SUBDOMAIN.test(leaseName)) {
    problems.push({
      key: 'leaseName',
      message: `cluster.kubernetes.leaseName must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most 253 characters), got '${leaseName}'`,
    });
  }
  const namespace = typed.leaseNamespace ?? null;
  if (namespace !== null && (namespace.length > 63 || !LABEL.test(namespace))) {
    problems.push({
      key: 'leaseNamespace',
      message: `cluster.kubernetes.leaseNamespace must be a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters), got '${namespace}'`,
    });
  }
  const duration = typed.leaseDurationSeconds ?? 15;
  const renew = typed.renewDeadlineSeconds ?? 10;
  const retry = typed.retryPeriodSeconds ?? 2;
  const timing = (key: string, ok: boolean, message: string): void => {
    if (!ok) problems.push({ key, message: `cluster.kubernetes: ${message}` });
  };
  timing('renewDeadlineSeconds', renew > 0, `renewDeadlineSeconds must be > 0 (got ${renew})`);
  timing(
    'leaseDurationSeconds',
    duration > renew,
    `leaseDurationSeconds (${duration}) must be greater than renewDeadlineSeconds (${renew})`,
  );
  timing('retryPeriodSeconds', retry > 0, `retryPeriodSeconds must be > 0 (got ${retry})`);
  timing(
    'retryPeriodSeconds',
    retry < renew,
    `retryPeriodSeconds (${retry}) must be less than renewDeadlineSeconds (${renew})`,
  );
  timing(
    'renewDeadlineSeconds',
    renew + retry < duration,
    `renewDeadlineSeconds (${renew}) + retryPeriodSeconds (${retry}) must be less than leaseDurationSeconds (${duration}), so a renew that just misses its deadline still leaves a retry inside the lease`,
  );
  const apiServer = typed.apiServer ?? null;
  if (apiServer !== null && !/^https:\/\//i.test(apiServer)) {
    problems.push({
      key: 'apiServer',
      message: `cluster.kubernetes.apiServer must be an https:// URL, got '${redactUrl(apiServer)}'`,
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      leaseName,
      leaseNamespace: namespace,
      leaseDurationSeconds: duration,
      renewDeadlineSeconds: renew,
      retryPeriodSeconds: retry,
      identity: typed.identity ?? nodeName,
      kubeconfig: typed.kubeconfig ?? null,
      apiServer,
      clientLibrary: typed.clientLibrary ?? 'auto',
    },
  };
}

export interface SecretServices {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export async function resolveEtcdBlock(
  typed: TypedEtcdBlock,
  services: SecretServices,
): Promise<{ block: BlockResult<ResolvedEtcdBlock>; advisories: string[] }> {
  const problems: BlockProblem[] = [];
  const advisories: string[] = [];
  const endpoints = typed.endpoints ?? ['http://127.0.0.1:2379'];
  if (endpoints.length === 0) {
    problems.push({ key: 'endpoints', message: 'cluster.etcd.endpoints must not be empty' });
  }
  for (const endpoint of endpoints) {
    const problem = etcdEndpointProblem(endpoint);
    if (problem !== null) problems.push({ key: 'endpoints', message: problem });
  }
  const ttl = typed.ttl ?? 15;
  if (ttl < 3) {
    problems.push({
      key: 'ttl',
      message: `cluster.etcd.ttl must be >= 3 seconds (a shorter lease leaves no time to renew it), got ${ttl}`,
    });
  } else if (etcdRequestBudgetS(ttl) < 1) {
    advisories.push(
      `cluster.etcd.ttl is ${ttl}s: each etcd request then gets ${etcdRequestBudgetS(ttl).toFixed(2)} s within a round (half its deadline); an etcd answering slower than that costs leadership. Consider ttl >= 5`,
    );
  }
  const password = await resolvePassword(typed.password, services);
  if ('problem' in password) problems.push({ key: 'password', message: password.problem });
  const username = typed.username ?? null;
  const resolvedPassword = 'value' in password ? password.value : null;
  if (username !== null && resolvedPassword === null && !('problem' in password)) {
    problems.push({
      key: 'username',
      message:
        'cluster.etcd.username is set but no password is configured; set cluster.etcd.password (value, fromFile or fromEnvVar)',
    });
  }
  const plain = endpoints.filter((endpoint) => !/^https:\/\//i.test(endpoint));
  if ((username !== null || resolvedPassword !== null) && plain.length > 0) {
    problems.push({
      key: username !== null ? 'username' : 'password',
      message: `cluster.etcd: authentication (username/password) requires https:// endpoints, so the credentials never cross the network in clear: ${plain.map(redactUrl).join(', ')}`,
    });
  }
  if (username === null && resolvedPassword === null && plain.length > 0) {
    advisories.push(
      `cluster.etcd: no authentication over plain http:// (${plain.map(redactUrl).join(', ')}): whatever reaches etcd there, any job of this node included, can revoke the leader's lease or overwrite the election; set username and password with https:// endpoints, or keep etcd reachable by this daemon alone`,
    );
  }
  const tls = {
    ca: typed.tls?.ca ?? null,
    cert: typed.tls?.cert ?? null,
    key: typed.tls?.key ?? null,
  };
  if ((tls.cert === null) !== (tls.key === null)) {
    problems.push({
      key: 'tls',
      message: 'cluster.etcd.tls: set cert and key together, or neither',
    });
  }
  if (
    (tls.ca !== null || tls.cert !== null || tls.key !== null) &&
    plain.length === endpoints.length
  ) {
    problems.push({
      key: 'tls',
      message:
        'cluster.etcd.tls is configured but no endpoint is https://; TLS settings would be ignored',
    });
  }
  if (problems.length > 0) return { block: { ok: false, problems }, advisories };
  return {
    block: {
      ok: true,
      value: {
        endpoints: Object.freeze([...endpoints]),
        electionName: typed.electionName ?? 'yacron2/leader',
        ttlSeconds: ttl,
        username,
        password: resolvedPassword,
        passwordEnvVar: typed.password?.fromEnvVar ?? null,
        tls: Object.freeze(tls),
      },
    },
    advisories,
  };
}

function etcdEndpointProblem(endpoint: string): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `cluster.etcd.endpoints entry must be http(s)://host[:port], got '${redactUrl(endpoint)}'`;
  }
  if (url.username !== '' || url.password !== '') {
    return `cluster.etcd.endpoints entry must not embed credentials in the URL (use cluster.etcd.username/password), got '${redactUrl(endpoint)}'`;
  }
  const schemeOk = url.protocol === 'http:' || url.protocol === 'https:';
  const portOk = url.port === '' || (Number(url.port) >= 1 && Number(url.port) <= 65_535);
  if (!schemeOk || url.hostname === '' || !portOk || /:0+$/.test(url.host)) {
    return `cluster.etcd.endpoints entry must be http(s)://host[:port], got '${redactUrl(endpoint)}'`;
  }
  return null;
}

/** `scheme://***@host…`: userinfo never reaches a message or a log. */
export function redactUrl(text: string): string {
  return text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@]*@/, '$1***@');
}

type PasswordResolution =
  { readonly value: string } | { readonly none: true } | { readonly problem: string };

/** Exactly one source; value, else the file's stripped contents, else the variable. */
async function resolvePassword(
  source: TypedSecretSource | undefined,
  services: SecretServices,
): Promise<PasswordResolution> {
  if (source === undefined) return { none: true };
  const given = (['value', 'fromFile', 'fromEnvVar'] as const).filter(
    (key) => source[key] !== undefined && source[key] !== null,
  );
  if (given.length > 1) {
    return {
      problem: `cluster.etcd.password: set exactly one of value, fromFile or fromEnvVar (found ${given.join(', ')})`,
    };
  }
  let secret = '';
  if (source.value) secret = source.value;
  else if (source.fromFile) {
    try {
      secret = (await readFile(path.resolve(services.cwd, source.fromFile), 'utf8')).trim();
    } catch (error) {
      return {
        problem: `cluster.etcd.password.fromFile could not be read: ${describeIoError(error)}`,
      };
    }
  } else if (source.fromEnvVar) {
    secret = services.env[source.fromEnvVar] ?? '';
  }
  if (secret === '') {
    return { problem: 'cluster.etcd.password is configured but resolved to an empty secret' };
  }
  return { value: secret };
}

export function resolveFilesystemBlock(
  typed: TypedFilesystemBlock,
  services: { readonly cwd: string },
): BlockResult<ResolvedFilesystemBlock> {
  const problems: BlockProblem[] = [];
  const storePath = typed.path ?? '';
  if (storePath.trim() === '') {
    problems.push({
      key: 'path',
      message:
        'cluster.filesystem.path is required and must be non-empty (the shared mount every node elects over)',
    });
  }
  const electionName = typed.electionName ?? 'cluster/leader';
  if (electionName.trim() === '') {
    problems.push({
      key: 'electionName',
      message: 'cluster.filesystem.electionName must be non-empty',
    });
  }
  const ttl = typed.ttl ?? 15;
  if (!Number.isFinite(ttl) || ttl < 3) {
    problems.push({
      key: 'ttl',
      message: `cluster.filesystem.ttl must be a finite number >= 3 seconds, got ${ttl}`,
    });
  }
  const deploymentId = typed.deploymentId ?? null;
  const idProblem = deploymentIdProblem(deploymentId);
  if (idProblem !== undefined) {
    problems.push({ key: 'deploymentId', message: `cluster.filesystem.${idProblem}` });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      path: path.resolve(services.cwd, storePath),
      electionName,
      ttlSeconds: ttl,
      deploymentId,
      topology: typed.topology ?? 'auto',
    },
  };
}

/**
 * An etcd request's budget at this TTL, connectTimeout aside: half the round deadline
 * `max(1, ttl − period − 1)`, period `max(1, ttl / 3)` (docs/clustering.md "etcd").
 */
function etcdRequestBudgetS(ttl: number): number {
  return Math.max(1, ttl - Math.max(1, ttl / 3) - 1) / 2;
}
