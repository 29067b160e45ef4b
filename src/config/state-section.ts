// The `state` section (docs/durable-state.md "The state section"): its schema, the range
// checks, and its resolution into a frozen ResolvedState with units in the names. It only
// parses; opening the store is src/state's business.
import * as path from 'node:path';
import { issueAt, type ConfigIssue, type Loc, type LocTable } from './issues.js';
import {
  bool,
  emptyNone,
  float,
  int,
  map,
  oneOf,
  opt,
  req,
  str,
  type MapOut,
} from './schema-nodes.js';
import type { SourceLocation } from './types.js';

export type StateTopologySetting = 'auto' | 'single-node' | 'shared';
export type OnStoreUnavailable = 'degrade' | 'fail-closed';

/** A `jobApi.listen` override: an http://host:port bind. */
export interface JobApiListen {
  /** As written, without IPv6 brackets (`127.0.0.1`, `::1`, `localhost`). */
  readonly host: string;
  /** 0 = an OS-assigned ephemeral port. */
  readonly port: number;
}

/** The job-facing endpoint (`state.jobApi`); served by a later issue, validated now. */
export interface ResolvedJobApi {
  readonly enabled: boolean;
  /** null = an ephemeral port on 127.0.0.1. */
  readonly listen: JobApiListen | null;
  readonly allowNonLoopbackBind: boolean;
  /** Cap on one KV / cursor value (compact JSON bytes); null = unlimited (0 in the config). */
  readonly maxValueBytes: number | null;
  /** Cap on one artifact payload; null = unlimited (0 in the config). */
  readonly maxArtifactBytes: number | null;
  readonly lockTtlMs: number;
}

export interface ResolvedState {
  /** Absolute store root (a relative `path` resolves against the daemon's working directory). */
  readonly path: string;
  readonly topology: StateTopologySetting;
  /** Namespace inside the store; null = the default namespace. */
  readonly deploymentId: string | null;
  /** Finished-run records kept per job; null = unbounded (`<= 0` in the config). */
  readonly maxRunsPerJob: number | null;
  readonly onStoreUnavailable: OnStoreUnavailable;
  /** GC grace; null = automatic GC disabled (`<= 0` in the config). */
  readonly gcGraceMs: number | null;
  /** Token-bucket cap on store operations; 0 = unlimited. */
  readonly maxOpsPerSecond: number;
  readonly slotTtlMs: number;
  readonly jobApi: ResolvedJobApi;
  /** Where the section was written. */
  readonly source: SourceLocation;
}

interface StateDefaults {
  readonly topology: StateTopologySetting;
  readonly maxRunsPerJob: number;
  readonly onStoreUnavailable: OnStoreUnavailable;
  readonly gcGraceSeconds: number;
  readonly maxOpsPerSecond: number;
  readonly slotTtlSeconds: number;
  readonly jobApi: {
    readonly enabled: boolean;
    readonly allowNonLoopbackBind: boolean;
    readonly maxValueBytes: number;
    readonly maxArtifactBytes: number;
    readonly lockTtlSeconds: number;
  };
}

/** The seed's defaults, in the config's own units. */
export const STATE_DEFAULTS: StateDefaults = Object.freeze({
  topology: 'auto',
  maxRunsPerJob: 1000,
  onStoreUnavailable: 'degrade',
  gcGraceSeconds: 604_800,
  maxOpsPerSecond: 0,
  slotTtlSeconds: 30,
  jobApi: Object.freeze({
    enabled: true,
    allowNonLoopbackBind: false,
    maxValueBytes: 1_048_576,
    maxArtifactBytes: 67_108_864,
    lockTtlSeconds: 30,
  }),
});

/** Smallest accepted positive GC grace: one day, so it covers the 6-hour manifest cadence. */
export const MIN_GC_GRACE_SECONDS = 86_400;
/** Smallest lease TTL: a tiny TTL leaves no room for renew latency on a network mount. */
export const MIN_LEASE_TTL_SECONDS = 5;
/** Largest lease TTL: a lease that outlives a crashed holder by more than a day means nothing. */
export const MAX_LEASE_TTL_SECONDS = 86_400;
/**
 * Smallest positive maxOpsPerSecond: below one operation per 10 s a lone store call cannot get
 * its token within the 10 s every scheduling-path and job-API call is allowed.
 */
export const MIN_MAX_OPS_PER_SECOND = 0.1;

const JOB_API_SCHEMA = map({
  enabled: opt(bool),
  listen: opt(emptyNone(str)),
  allowNonLoopbackBind: opt(bool),
  maxValueBytes: opt(int),
  maxArtifactBytes: opt(int),
  lockTtlSeconds: opt(float),
});

export const STATE_SCHEMA = map({
  path: req(str),
  topology: opt(oneOf(['auto', 'single-node', 'shared'])),
  deploymentId: opt(emptyNone(str)),
  maxRunsPerJob: opt(int),
  onStoreUnavailable: opt(oneOf(['degrade', 'fail-closed'])),
  gcGraceSeconds: opt(int),
  maxOpsPerSecond: opt(float),
  slotTtlSeconds: opt(float),
  jobApi: opt(JOB_API_SCHEMA),
});

/** The `state` block as typed by STATE_SCHEMA (checked and resolved by resolveStateSection). */
export type TypedState = MapOut<typeof STATE_SCHEMA.fields>;

export interface StateResolveContext {
  readonly locs: LocTable;
  /** Relative store paths resolve against this directory. */
  readonly cwd: string;
}

/**
 * Resolve a typed `state` section (`loc` = where the `state:` key was written). Returns the
 * frozen value, or every problem found, each located at the offending key.
 */
export function resolveStateSection(
  typed: TypedState,
  loc: Loc,
  ctx: StateResolveContext,
): ResolvedState | ConfigIssue[] {
  const api = typed.jobApi ?? {};
  const issues: ConfigIssue[] = [];
  const where = (container: object, key: string, parent: string): Loc =>
    ctx.locs.get(container, key) ?? { ...loc, path: `${parent}.${key}` };
  const check = (
    container: object,
    key: string,
    parent: string,
    problem: string | undefined,
  ): void => {
    if (problem !== undefined) issues.push(issueAt(where(container, key, parent), problem));
  };

  check(typed, 'path', 'state', typed.path.trim() === '' ? 'path must not be empty' : undefined);
  check(typed, 'deploymentId', 'state', deploymentIdProblem(typed.deploymentId));
  check(typed, 'gcGraceSeconds', 'state', gcGraceProblem(typed.gcGraceSeconds));
  check(typed, 'maxOpsPerSecond', 'state', maxOpsProblem(typed.maxOpsPerSecond));
  check(typed, 'slotTtlSeconds', 'state', ttlProblem('slotTtlSeconds', typed.slotTtlSeconds));
  check(api, 'lockTtlSeconds', 'state.jobApi', ttlProblem('lockTtlSeconds', api.lockTtlSeconds));
  check(api, 'maxValueBytes', 'state.jobApi', sizeProblem('maxValueBytes', api.maxValueBytes));
  check(
    api,
    'maxArtifactBytes',
    'state.jobApi',
    sizeProblem('maxArtifactBytes', api.maxArtifactBytes),
  );
  const parsedListen = parseListen(api.listen ?? null, api.allowNonLoopbackBind ?? false);
  if (typeof parsedListen === 'string') check(api, 'listen', 'state.jobApi', parsedListen);
  if (issues.length > 0 || typeof parsedListen === 'string') return issues;
  const listen = parsedListen;

  const defaults = STATE_DEFAULTS;
  const maxRuns = typed.maxRunsPerJob ?? defaults.maxRunsPerJob;
  const grace = typed.gcGraceSeconds ?? defaults.gcGraceSeconds;
  return Object.freeze({
    path: path.resolve(ctx.cwd, typed.path),
    topology: typed.topology ?? defaults.topology,
    deploymentId: typed.deploymentId ?? null,
    maxRunsPerJob: maxRuns <= 0 ? null : maxRuns,
    onStoreUnavailable: typed.onStoreUnavailable ?? defaults.onStoreUnavailable,
    gcGraceMs: grace <= 0 ? null : grace * 1000,
    maxOpsPerSecond: typed.maxOpsPerSecond ?? defaults.maxOpsPerSecond,
    slotTtlMs: Math.round((typed.slotTtlSeconds ?? defaults.slotTtlSeconds) * 1000),
    jobApi: Object.freeze({
      enabled: api.enabled ?? defaults.jobApi.enabled,
      listen: listen === null ? null : Object.freeze(listen),
      allowNonLoopbackBind: api.allowNonLoopbackBind ?? defaults.jobApi.allowNonLoopbackBind,
      maxValueBytes: zeroIsUnlimited(api.maxValueBytes ?? defaults.jobApi.maxValueBytes),
      maxArtifactBytes: zeroIsUnlimited(api.maxArtifactBytes ?? defaults.jobApi.maxArtifactBytes),
      lockTtlMs: Math.round((api.lockTtlSeconds ?? defaults.jobApi.lockTtlSeconds) * 1000),
    }),
    source: Object.freeze({ file: loc.file, line: loc.line }),
  });
}

function gcGraceProblem(value: number | undefined): string | undefined {
  if (value === undefined || value <= 0 || value >= MIN_GC_GRACE_SECONDS) return undefined;
  return (
    `gcGraceSeconds must be <= 0 (GC disabled) or >= ${MIN_GC_GRACE_SECONDS} (one day), found ${value}: ` +
    'a grace shorter than the 6-hour manifest cadence would hand live peers’ state to the collector'
  );
}

function ttlProblem(key: string, value: number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!(value >= MIN_LEASE_TTL_SECONDS && Number.isFinite(value))) {
    return `${key} must be a finite number >= ${MIN_LEASE_TTL_SECONDS}, found ${value}`;
  }
  if (value > MAX_LEASE_TTL_SECONDS) {
    return `${key} must be a finite number between ${MIN_LEASE_TTL_SECONDS} and ${MAX_LEASE_TTL_SECONDS} (one day), found ${value}`;
  }
  return undefined;
}

function maxOpsProblem(value: number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!(value >= 0 && Number.isFinite(value))) {
    return `maxOpsPerSecond must be a finite number >= 0 (0 = unlimited), found ${value}`;
  }
  if (value > 0 && value < MIN_MAX_OPS_PER_SECOND) {
    return `maxOpsPerSecond must be 0 (unlimited) or at least ${MIN_MAX_OPS_PER_SECOND} (a store call waits at most 10 s for its turn), found ${value}`;
  }
  return undefined;
}

function sizeProblem(key: string, value: number | undefined): string | undefined {
  if (value === undefined || value >= 0) return undefined;
  return `${key} must be >= 0 (0 = unlimited), found ${value}`;
}

function zeroIsUnlimited(value: number): number | null {
  return value === 0 ? null : value;
}

// The id names a directory under the store root: no separators, no dot names, no controls.
// eslint-disable-next-line no-control-regex
const UNSAFE_ID = /[/\\\u0000-\u001f\u007f]/;

/** The `deploymentId` rule (shared with `cluster.filesystem.deploymentId`). */
export function deploymentIdProblem(value: string | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value.trim() === '') return 'deploymentId must not be blank';
  if (value === '.' || value === '..' || UNSAFE_ID.test(value)) {
    return `deploymentId must be a plain name (no '/', '\\', control characters, '.' or '..'), found '${value}'`;
  }
  return undefined;
}

// `host:port` or `http://host:port` (docs/durable-state.md "The state section"); IPv6 literals in
// brackets.
const LISTEN_RE = /^(?:http:\/\/)?(\[[^\]/]+\]|[^:/[\]@]+):(\d{1,5})\/?$/;

/** null when unset; the bind; or the problem as a string. */
function parseListen(
  text: string | null,
  allowNonLoopbackBind: boolean,
): JobApiListen | null | string {
  if (text === null) return null;
  if (text.startsWith('unix:')) {
    return `listen must be host:port or an http://host:port URL; a unix:// socket is not accepted (the job commands speak TCP only), found '${text}'`;
  }
  const match = LISTEN_RE.exec(text);
  const port = Number(match?.[2]);
  if (!match || !(port <= 65535)) {
    return `listen must be host:port or an http://host:port URL (port 0-65535), found '${text}'`;
  }
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '');
  if (!allowNonLoopbackBind && !isLoopbackHost(host)) {
    return (
      `listen host '${host}' is not a loopback address; the endpoint serves bearer tokens and ` +
      'secrets over plaintext HTTP, so set allowNonLoopbackBind: true to bind it anyway'
    );
  }
  return { host, port };
}

export function isLoopbackHost(host: string): boolean {
  const lower = host.toLowerCase();
  if (lower === 'localhost' || lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower);
}
