// The `web` section (docs/configuration.md "web", docs/http-api.md "The web section"): its schema,
// load-time checks (headers, metrics buckets, nodeHistory ranges) and resolution into a frozen
// ResolvedWeb, bearer token included. A token that resolves empty is a value (`error`), not a load
// failure: the web API stays down and the rest of the configuration still applies.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { deepFreeze } from '../common/index.js';
import { describeIoError } from './source-files.js';
import { childPath, type Loc } from './issues.js';
import { SECRET_SOURCE, type TypedSecretSource } from './report-schema.js';
import { isEmptyValue, walkSection, type WalkContext } from './schema.js';
import {
  bool,
  either,
  float,
  int,
  map,
  mapOf,
  opt,
  req,
  seq,
  str,
  type MapOut,
} from './schema-nodes.js';
import type { RawNode } from './yaml-tree.js';

// TEMP: moves to types.ts once the config files are free to edit.
/**
 * A `web.listen` URL (docs/http-api.md "Listen URLs"): bound as TCP or unix socket, or skipped with
 * a warning.
 */
export type WebListener =
  | { readonly kind: 'tcp'; readonly url: string; readonly host: string; readonly port: number }
  | { readonly kind: 'unix'; readonly url: string; readonly path: string }
  | { readonly kind: 'ignored'; readonly url: string; readonly reason: string };

export interface WebMetricsSettings {
  readonly enabled: boolean;
  /** Serve /metrics without the bearer token. */
  readonly public: boolean;
  /** Histogram bounds in seconds, strictly increasing (+Inf is implied). */
  readonly durationBuckets: readonly number[];
}

export interface WebNodeHistorySettings {
  readonly enabled: boolean;
  readonly intervalMs: number;
  readonly points: number;
}

/** The `web` section resolved (docs/http-api.md "The web section"). */
export interface ResolvedWeb {
  /** In config order; an empty list means the server is not started. */
  readonly listen: readonly WebListener[];
  /** Extra response headers (docs/http-api.md "Responses, errors and limits"). */
  readonly headers: Readonly<Record<string, string>>;
  /** The resolved bearer token; null = no authentication. Never logged. */
  readonly authToken: string | null;
  /** `authToken.fromEnvVar` as written: that variable is kept out of job environments. */
  readonly authTokenEnvVar: string | null;
  /** A web configuration error (empty token, unreadable token file): the API stays down. */
  readonly error: string | null;
  /** Octal mode for unix sockets, as written (checked at bind time). */
  readonly socketMode: string | null;
  /**
   * Host names a TCP listener also answers for, lower-case, besides IP literals, localhost and
   * its own host (docs/http-api.md "Who may call it"); `*` = any.
   */
  readonly allowedHosts: readonly string[];
  readonly ui: boolean;
  readonly metrics: WebMetricsSettings;
  readonly nodeHistory: WebNodeHistorySettings;
  /** sha256 over every field, the token included: a reload restarts the server when it changes. */
  readonly digest: string;
}

const WEB_METRICS = map({
  enabled: opt(bool),
  public: opt(bool),
  durationBuckets: opt(seq(float)),
});

const WEB_NODE_HISTORY = map({
  enabled: opt(bool),
  interval: opt(float),
  points: opt(int),
});

export const WEB_SCHEMA = map({
  listen: req(seq(str)),
  headers: opt(mapOf(str)),
  authToken: opt(SECRET_SOURCE),
  socketMode: opt(str),
  allowedHosts: opt(seq(str)),
  ui: opt(bool),
  metrics: opt(either({ scalar: bool, map: WEB_METRICS, expected: 'a boolean or a mapping' })),
  nodeHistory: opt(
    either({ scalar: bool, map: WEB_NODE_HISTORY, expected: 'a boolean or a mapping' }),
  ),
});

export type TypedWebMetrics = MapOut<typeof WEB_METRICS.fields>;
export type TypedWebNodeHistory = MapOut<typeof WEB_NODE_HISTORY.fields>;
/** The `web` block as typed by WEB_SCHEMA (and checked by typeWebSection). */
export type TypedWeb = MapOut<typeof WEB_SCHEMA.fields>;

export const DEFAULT_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600,
]);
const DEFAULT_NODE_HISTORY_INTERVAL_S = 5;
const DEFAULT_NODE_HISTORY_POINTS = 720;
const NODE_HISTORY_POINTS_MIN = 10;
const NODE_HISTORY_POINTS_MAX = 50_000;

// RFC 9110 token characters, and what Node accepts in a header value.
const HEADER_NAME_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_HEADER_VALUE_RE = /[^\t\x20-\x7e\x80-\xff]/;
/** A DNS name (an optional trailing dot): letters, digits, `-`, `_` and dots. */
const ALLOWED_HOST_RE = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?$/;

/**
 * Types the `web` block and runs the checks that need no I/O; issues go to `ctx`. Returns
 * undefined when the block is invalid. An `authToken:` key written with an empty value counts as
 * a configured token that resolves empty (fail-closed, docs/http-api.md "Authentication"), not as
 * no token.
 */
export function typeWebSection(
  node: RawNode,
  sectionPath: string,
  line: number,
  ctx: WalkContext,
): TypedWeb | undefined {
  const value = walkSection(WEB_SCHEMA, 'web', node, sectionPath, line, ctx);
  if (value === undefined) return undefined;
  // The checks below add their own issues: the block is refused if any does.
  const before = ctx.issues.length;
  let typed: TypedWeb = value;
  const emptyToken =
    node.kind === 'map' &&
    node.entries.some((entry) => entry.key === 'authToken' && isEmptyValue(entry.value));
  if (emptyToken && typed.authToken === undefined) typed = { ...typed, authToken: {} };

  const where = (container: object | undefined, key: string, parent: string): Loc =>
    (container === undefined ? undefined : ctx.locs.get(container, key)) ?? {
      file: ctx.file,
      path: childPath(parent, key),
      line,
    };
  const report = (loc: Loc, message: string): void => {
    ctx.issues.push({ ...loc, message });
  };

  for (const [name, headerValue] of Object.entries(typed.headers ?? {})) {
    const loc = where(typed.headers, name, childPath(sectionPath, 'headers'));
    if (!HEADER_NAME_RE.test(name)) report(loc, `'${name}' is not a valid HTTP header name`);
    else if (BAD_HEADER_VALUE_RE.test(headerValue)) {
      report(loc, `the value of header '${name}' has characters HTTP does not allow`);
    }
  }
  const allowedHosts = typed.allowedHosts ?? [];
  for (const [index, host] of allowedHosts.entries()) {
    if (host !== '*' && !ALLOWED_HOST_RE.test(host)) {
      report(
        ctx.locs.get(allowedHosts, index) ?? {
          file: ctx.file,
          path: `${childPath(sectionPath, 'allowedHosts')}[${index}]`,
          line,
        },
        `web.allowedHosts: '${host}' is not a host name (write names like cron.example.com, or *)`,
      );
    }
  }
  if (typeof typed.metrics === 'object' && typed.metrics.durationBuckets !== undefined) {
    const buckets = typed.metrics.durationBuckets;
    if (!validBuckets(buckets)) {
      report(
        where(typed.metrics, 'durationBuckets', childPath(sectionPath, 'metrics')),
        `web.metrics.durationBuckets must be finite, positive and strictly increasing (got [${buckets.join(', ')}])`,
      );
    }
  }
  if (typeof typed.nodeHistory === 'object') {
    const history = typed.nodeHistory;
    const historyPath = childPath(sectionPath, 'nodeHistory');
    if (
      history.interval !== undefined &&
      !(Number.isFinite(history.interval) && history.interval >= 1)
    ) {
      report(
        where(history, 'interval', historyPath),
        `web.nodeHistory.interval must be a finite number >= 1 (got ${history.interval})`,
      );
    }
    if (
      history.points !== undefined &&
      (history.points < NODE_HISTORY_POINTS_MIN || history.points > NODE_HISTORY_POINTS_MAX)
    ) {
      report(
        where(history, 'points', historyPath),
        `web.nodeHistory.points must be between ${NODE_HISTORY_POINTS_MIN} and ${NODE_HISTORY_POINTS_MAX} (got ${history.points})`,
      );
    }
  }
  return ctx.issues.length > before ? undefined : typed;
}

function validBuckets(buckets: readonly number[]): boolean {
  if (buckets.length === 0) return false;
  let previous = 0;
  for (const bucket of buckets) {
    if (!Number.isFinite(bucket) || bucket <= previous) return false;
    previous = bucket;
  }
  return true;
}

/**
 * A listen URL (docs/http-api.md "Listen URLs"): a TCP or unix-socket listener, or one to skip with
 * a warning.
 */
export function parseListenUrl(url: string): WebListener {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'http') {
    // The port must be written: a listener never binds a port nobody asked for.
    const match = /^http:\/\/(\[[0-9A-Fa-f:.]+\]|[^\s/:?#[\]@]+):(\d{1,5})\/?$/i.exec(url);
    if (!match?.[1] || !match[2]) {
      return { kind: 'ignored', url, reason: 'http url needs host and port' };
    }
    const host = match[1].startsWith('[') ? match[1].slice(1, -1) : match[1];
    return { kind: 'tcp', url, host, port: Number(match[2]) };
  }
  if (scheme === 'unix') {
    const rest = url.slice('unix://'.length);
    if (!url.toLowerCase().startsWith('unix://') || !rest.startsWith('/')) {
      return { kind: 'ignored', url, reason: 'unix url needs an absolute path (unix:///path)' };
    }
    let socketPath: string;
    try {
      socketPath = decodeURIComponent(rest);
    } catch {
      return { kind: 'ignored', url, reason: 'unix url path is not valid percent-encoding' };
    }
    return { kind: 'unix', url, path: socketPath };
  }
  return { kind: 'ignored', url, reason: `scheme '${scheme ?? ''}' not supported` };
}

export interface WebResolveServices {
  /** Relative `authToken.fromFile` paths resolve against it. */
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

const EMPTY_TOKEN_MESSAGE =
  'web.authToken is configured but resolved to an empty token; set authToken.value, point fromFile or fromEnvVar at a non-empty token, or remove authToken to turn authentication off';

/**
 * Token precedence (docs/http-api.md "Authentication"): non-empty value, then the file's stripped
 * contents, then the env var.
 */
async function resolveToken(
  source: TypedSecretSource,
  services: WebResolveServices,
): Promise<{ token: string } | { error: string }> {
  if (source.value) return { token: source.value };
  if (source.fromFile) {
    let text: string;
    try {
      text = await readFile(path.resolve(services.cwd, source.fromFile), 'utf8');
    } catch (error) {
      return { error: `web.authToken.fromFile could not be read: ${describeIoError(error)}` };
    }
    const token = text.trim();
    if (token !== '') return { token };
  }
  if (source.fromEnvVar) {
    const token = services.env[source.fromEnvVar];
    if (token) return { token };
  }
  return { error: EMPTY_TOKEN_MESSAGE };
}

/** Defaults applied, listeners parsed, the token resolved (docs/http-api.md "The web section"). */
export async function resolveWebSection(
  typed: TypedWeb,
  services: WebResolveServices,
): Promise<ResolvedWeb> {
  const auth =
    typed.authToken === undefined ? { token: null } : await resolveToken(typed.authToken, services);
  const metricsBlock: TypedWebMetrics =
    typeof typed.metrics === 'object' ? typed.metrics : { enabled: typed.metrics ?? true };
  const metrics: WebMetricsSettings = {
    enabled: metricsBlock.enabled ?? true,
    public: metricsBlock.public ?? false,
    durationBuckets: Object.freeze([...(metricsBlock.durationBuckets ?? DEFAULT_DURATION_BUCKETS)]),
  };
  const historyBlock: TypedWebNodeHistory =
    typeof typed.nodeHistory === 'object'
      ? typed.nodeHistory
      : { enabled: typed.nodeHistory ?? true };
  const nodeHistory: WebNodeHistorySettings = {
    enabled: historyBlock.enabled ?? true,
    intervalMs: (historyBlock.interval ?? DEFAULT_NODE_HISTORY_INTERVAL_S) * 1000,
    points: historyBlock.points ?? DEFAULT_NODE_HISTORY_POINTS,
  };
  const settings = {
    listen: typed.listen.map(parseListenUrl),
    headers: { ...typed.headers },
    authToken: 'token' in auth ? auth.token : null,
    authTokenEnvVar: typed.authToken?.fromEnvVar ?? null,
    error: 'error' in auth ? auth.error : null,
    socketMode: typed.socketMode ?? null,
    allowedHosts: (typed.allowedHosts ?? []).map((host) => host.toLowerCase().replace(/\.$/, '')),
    ui: typed.ui ?? true,
    metrics,
    nodeHistory,
  };
  // Any change, the resolved token included, restarts the server on reload (docs/http-api.md
  // "Listen URLs"). The token is hashed in with the rest; it never appears in clear outside
  // `authToken`.
  const digest = createHash('sha256').update(JSON.stringify(settings)).digest('hex');
  return deepFreeze({ ...settings, digest });
}
