// The names GC recognises (docs/durable-state.md "Garbage collection"): which
// stream family a stream belongs to and who
// owns it, the DAG document / lease / XCom naming, and the GC timings. Pure; no I/O. Anything
// not positively recognised here is never collected.

/** Per-job stream families, scoped by job name (`runs/<job>`). */
export const JOB_STREAM_FAMILIES = [
  'runs',
  'logs',
  'catchup',
  'retries',
  'reboot',
  'inflight',
  'slots',
] as const;
export type JobStreamFamily = (typeof JOB_STREAM_FAMILIES)[number];

/** Per-host stream families (`counters/<host>`, `manifests/<host>`). */
export const HOST_STREAM_FAMILIES = ['counters', 'manifests'] as const;
export type HostStreamFamily = (typeof HOST_STREAM_FAMILIES)[number];

/** The store's version stamp: never collected. */
export const META_STREAM = 'meta';

export const MANIFEST_STREAM_PREFIX = 'manifests/';
export const ARTIFACT_STREAM_PREFIX = 'artifacts/';
/** dag_run documents: namespace `dagrun/<dag>`, key = the run key. */
export const DAG_RUN_DOC_PREFIX = 'dagrun/';
/** Per-run DAG advance leases: `dagadvance/<dag>/<runKey>` (the only leases GC may delete). */
export const DAG_ADVANCE_LEASE_PREFIX = 'dagadvance/';
/** A DAG run's XCom artifact scope: `dagxcom/<dag>/<runId>`. */
export const DAG_XCOM_SCOPE_PREFIX = 'dagxcom/';
/** The conventional shared job-facing scope. */
export const GLOBAL_SCOPE = 'global';

/** A manifest every 6 hours (and at backend start). */
export const MANIFEST_INTERVAL_MS = 6 * 3_600_000;
/** A GC pass every 24 hours per process. */
export const GC_INTERVAL_MS = 24 * 3_600_000;
/** Crashed write-temps older than a day are swept. */
export const TEMP_MAX_AGE_MS = 24 * 3_600_000;

export type StreamClass =
  | { readonly kind: 'job'; readonly family: JobStreamFamily; readonly job: string }
  | { readonly kind: 'host'; readonly family: HostStreamFamily; readonly host: string }
  | { readonly kind: 'artifact'; readonly scope: string }
  | { readonly kind: 'meta' }
  | { readonly kind: 'unrecognised' };

const JOB_FAMILIES: ReadonlySet<string> = new Set(JOB_STREAM_FAMILIES);
const HOST_FAMILIES: ReadonlySet<string> = new Set(HOST_STREAM_FAMILIES);

/** What a stream is, by its name; the owner is everything after the first `/`. */
export function classifyStream(stream: string): StreamClass {
  if (stream === META_STREAM) return { kind: 'meta' };
  const slash = stream.indexOf('/');
  if (slash <= 0 || slash === stream.length - 1) return { kind: 'unrecognised' };
  const family = stream.slice(0, slash);
  const owner = stream.slice(slash + 1);
  if (JOB_FAMILIES.has(family)) {
    return { kind: 'job', family: family as JobStreamFamily, job: owner };
  }
  if (HOST_FAMILIES.has(family)) {
    return { kind: 'host', family: family as HostStreamFamily, host: owner };
  }
  if (family === 'artifacts') return { kind: 'artifact', scope: owner };
  return { kind: 'unrecognised' };
}

export function jobStream(family: JobStreamFamily, job: string): string {
  return `${family}/${job}`;
}

export function manifestStream(host: string): string {
  return `${MANIFEST_STREAM_PREFIX}${host}`;
}

export function artifactStream(scope: string): string {
  return `${ARTIFACT_STREAM_PREFIX}${scope}`;
}

/** The document namespace of a dag's runs. */
export function dagRunNamespace(dag: string): string {
  return `${DAG_RUN_DOC_PREFIX}${dag}`;
}

export function dagAdvanceLeaseName(dag: string, runKey: string): string {
  return `${DAG_ADVANCE_LEASE_PREFIX}${dag}/${runKey}`;
}

export function dagXcomScope(dag: string, runId: string): string {
  return `${DAG_XCOM_SCOPE_PREFIX}${dag}/${runId}`;
}

/** `dagrun/<dag>` → the dag, or undefined for any other document namespace. */
export function parseDagRunNamespace(ns: string): string | undefined {
  if (!ns.startsWith(DAG_RUN_DOC_PREFIX)) return undefined;
  const dag = ns.slice(DAG_RUN_DOC_PREFIX.length);
  return dag === '' ? undefined : dag;
}

/** `dagxcom/<dag>/<runId>` → the dag, or undefined for any other scope. */
export function parseDagXcomScope(scope: string): { dag: string; runId: string } | undefined {
  if (!scope.startsWith(DAG_XCOM_SCOPE_PREFIX)) return undefined;
  const rest = scope.slice(DAG_XCOM_SCOPE_PREFIX.length);
  const slash = rest.lastIndexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { dag: rest.slice(0, slash), runId: rest.slice(slash + 1) };
}

/** The terminal dag_run states: a run GC may delete (docs/durable-state.md "Garbage collection"). */
export const TERMINAL_DAG_RUN_STATES: ReadonlySet<string> = new Set(['success', 'failed']);
