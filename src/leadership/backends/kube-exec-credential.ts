// The kubeconfig `user.exec` block and the ExecCredential a plugin prints, as values
// (docs/clustering.md "Kubernetes"): client.authentication.k8s.io/v1 and v1beta1, the way EKS
// (`aws eks get-token`), GKE (`gke-gcloud-auth-plugin`) and OIDC (`kubelogin`) kubeconfigs
// authenticate. Pure: reading the block and the plugin's answer; kube-exec-plugin.ts runs it.
// Must not: put a token, a key or the plugin's whole output into a message.
import { isAbsolute, resolve } from 'node:path';

export const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

export interface ExecPluginSpec {
  readonly apiVersion: ExecApiVersion;
  /** As written: a bare name is looked up on PATH, a path with a slash is the kubeconfig's. */
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly installHint: string | null;
  /** Sent as spec.cluster in KUBERNETES_EXEC_INFO when the kubeconfig asks (provideClusterInfo). */
  readonly cluster: Readonly<Record<string, unknown>> | null;
}

/** What one run of the plugin gave. */
export interface ExecCredential {
  readonly token: string | null;
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
  /** Wall-clock epoch ms after which the plugin is run again; null = for the process's life. */
  readonly expiresAtMs: number | null;
}

export type ExecSpecReading =
  | { readonly kind: 'spec'; readonly spec: ExecPluginSpec }
  | { readonly kind: 'invalid'; readonly field: string; readonly problem: string };

export type ExecCredentialReading =
  | { readonly kind: 'credential'; readonly credential: ExecCredential }
  | { readonly kind: 'invalid'; readonly problem: string };

type Yaml = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Yaml =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a kubeconfig user's `exec` block. `dir` is the kubeconfig's folder (a command written
 * as a relative path with a slash is relative to it, as kubectl does); `cluster` is what
 * provideClusterInfo sends.
 */
export function readExecSpec(
  exec: unknown,
  dir: string,
  cluster: Yaml,
  server: string,
): ExecSpecReading {
  const invalid = (field: string, problem: string): ExecSpecReading => ({
    kind: 'invalid',
    field: `exec.${field}`,
    problem,
  });
  if (!isObject(exec)) return invalid('', 'must be a mapping');
  const apiVersion = exec.apiVersion;
  if (!EXEC_API_VERSIONS.includes(apiVersion as ExecApiVersion)) {
    return invalid(
      'apiVersion',
      `must be one of ${EXEC_API_VERSIONS.join(', ')} (got ${JSON.stringify(apiVersion ?? null)}; v1alpha1 is no longer served by Kubernetes either)`,
    );
  }
  const command = exec.command;
  if (typeof command !== 'string' || command === '') {
    return invalid('command', 'must be a non-empty string');
  }
  const args = exec.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
    return invalid('args', 'must be a list of strings');
  }
  const envList = exec.env ?? [];
  const env: { name: string; value: string }[] = [];
  if (!Array.isArray(envList)) return invalid('env', 'must be a list of {name, value}');
  for (const [index, entry] of envList.entries()) {
    if (!isObject(entry) || typeof entry.name !== 'string' || entry.name === '') {
      return invalid(`env[${index}].name`, 'must be a non-empty string');
    }
    if (typeof entry.value !== 'string') {
      return invalid(`env[${index}].value`, 'must be a string');
    }
    env.push({ name: entry.name, value: entry.value });
  }
  // v1 requires the field; unwritten, it is read as IfAvailable (the daemon is never interactive).
  const mode = exec.interactiveMode ?? 'IfAvailable';
  if (mode === 'Always') {
    return invalid(
      'interactiveMode',
      'is Always, but the daemon has no terminal to ask on; use a plugin that runs unattended (a cached login, a service principal, a workload identity)',
    );
  }
  if (mode !== 'Never' && mode !== 'IfAvailable') {
    return invalid('interactiveMode', 'must be Never, IfAvailable or Always');
  }
  const hint = exec.installHint;
  return {
    kind: 'spec',
    spec: {
      apiVersion: apiVersion as ExecApiVersion,
      command: command.includes('/') && !isAbsolute(command) ? resolve(dir, command) : command,
      args,
      env,
      installHint: typeof hint === 'string' && hint !== '' ? hint : null,
      cluster: exec.provideClusterInfo === true ? clusterInfo(cluster, server) : null,
    },
  };
}

function clusterInfo(cluster: Yaml, server: string): Record<string, unknown> {
  const info: Record<string, unknown> = { server };
  const ca = cluster['certificate-authority-data'];
  if (typeof ca === 'string' && ca !== '') info['certificate-authority-data'] = ca;
  if (cluster['insecure-skip-tls-verify'] === true) info['insecure-skip-tls-verify'] = true;
  if (typeof cluster['tls-server-name'] === 'string') {
    info['tls-server-name'] = cluster['tls-server-name'];
  }
  return info;
}

/** The KUBERNETES_EXEC_INFO a plugin reads: never interactive (the daemon has no terminal). */
export function execInfo(spec: ExecPluginSpec): string {
  return JSON.stringify({
    apiVersion: spec.apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(spec.cluster !== null && { cluster: spec.cluster }) },
  });
}

/** Reads a plugin's stdout: an ExecCredential of the same apiVersion with a token or a cert. */
export function readExecCredential(stdout: string, spec: ExecPluginSpec): ExecCredentialReading {
  const invalid = (problem: string): ExecCredentialReading => ({ kind: 'invalid', problem });
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return invalid(`its output is not JSON (${stdout.length} characters)`);
  }
  if (!isObject(doc)) return invalid('its output is not a JSON object');
  if (doc.kind !== 'ExecCredential') return invalid('its output is not kind ExecCredential');
  if (doc.apiVersion !== spec.apiVersion) {
    return invalid(
      `its output has apiVersion ${JSON.stringify(doc.apiVersion ?? null)}, the kubeconfig asked for ${spec.apiVersion}`,
    );
  }
  const status = doc.status;
  if (!isObject(status)) return invalid('its output has no status');
  const text = (key: string): string | null =>
    typeof status[key] === 'string' && status[key] !== '' ? status[key] : null;
  const token = text('token');
  const certPem = text('clientCertificateData');
  const keyPem = text('clientKeyData');
  if ((certPem === null) !== (keyPem === null)) {
    return invalid('its status has only one of clientCertificateData and clientKeyData');
  }
  if (token === null && certPem === null) {
    return invalid('its status has neither a token nor a client certificate');
  }
  let expiresAtMs: number | null = null;
  const expiry = status.expirationTimestamp;
  if (expiry !== undefined && expiry !== null) {
    expiresAtMs = typeof expiry === 'string' ? Date.parse(expiry) : Number.NaN;
    if (!Number.isFinite(expiresAtMs)) {
      return invalid('its status.expirationTimestamp is not an RFC 3339 time');
    }
  }
  return {
    kind: 'credential',
    credential: {
      token,
      cert: certPem === null ? undefined : Buffer.from(certPem),
      key: keyPem === null ? undefined : Buffer.from(keyPem),
      expiresAtMs,
    },
  };
}
