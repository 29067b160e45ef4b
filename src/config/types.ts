// The resolved configuration: frozen, fully defaulted values with units in the names. Nothing
// below config/ applies defaults or parses durations; it reads these shapes. (The written,
// typed shape of a job is inferred from the schema table in job-schema.ts.)
import type { Schedule } from '../schedule/index.js';
import type { ResolvedCluster } from './cluster-schema.js';
import type { ResolvedDag } from './dag-schema.js';
import type { ResolvedState } from './state-section.js';
import type { ResolvedWeb } from './web-section.js';

export type {
  ClusterBackend,
  ClusterDistributionSetting,
  ClusterTlsPaths,
  ResolvedCluster,
  ResolvedEtcdCluster,
  ResolvedFilesystemCluster,
  ResolvedGossipCluster,
  ResolvedKubernetesCluster,
} from './cluster-schema.js';
export type { ClusterAddress } from './cluster-address.js';
export type {
  ResolvedEtcdBlock,
  ResolvedFilesystemBlock,
  ResolvedKubernetesBlock,
} from './cluster-lease-blocks.js';
export type {
  JobApiListen,
  OnStoreUnavailable,
  ResolvedJobApi,
  ResolvedState,
  StateTopologySetting,
} from './state-section.js';
export type {
  ResolvedWeb,
  WebListener,
  WebMetricsSettings,
  WebNodeHistorySettings,
} from './web-section.js';

export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';
export type ConcurrencyScope = 'node' | 'cluster';
export type ClusterPolicy = 'Leader' | 'PreferLeader' | 'EveryNode';
export type OnMissed = 'skip' | 'run-once' | 'run-all';

/** Where a value came from, for error messages and logs. */
export interface SourceLocation {
  readonly file: string;
  /** 1-based line, 0 when unknown. */
  readonly line: number;
}

/** `value` / `fromFile` / `fromEnvVar`; resolved lazily (at report/run time), never logged. */
export interface SecretSource {
  readonly value: string | null;
  readonly fromFile: string | null;
  readonly fromEnvVar: string | null;
}

export type JobCommand =
  | { readonly kind: 'shell'; readonly script: string }
  | { readonly kind: 'argv'; readonly argv: readonly string[] };

/** `text` is how the schedule is shown everywhere (APIs, logs, metrics, report variables). */
export type JobSchedule =
  | { readonly kind: 'reboot'; readonly text: '@reboot' }
  | {
      readonly kind: 'cron';
      /** The expression as rendered (object form turned into a crontab line), whitespace collapsed. */
      readonly text: string;
      readonly schedule: Schedule;
      /** True for 7-field expressions. */
      readonly secondGranularity: boolean;
    };

export interface EnvironmentEntry {
  readonly key: string;
  readonly value: string;
}

export interface FailsWhen {
  readonly producesStdout: boolean;
  readonly producesStderr: boolean;
  readonly nonzeroReturn: boolean;
  readonly always: boolean;
}

export interface RetryPolicy {
  /** 0 = no retries, -1 = forever. */
  readonly maximumRetries: number;
  readonly initialDelayMs: number;
  readonly maximumDelayMs: number;
  readonly backoffMultiplier: number;
}

export interface MailReport {
  readonly from: string | null;
  readonly to: string | null;
  readonly smtpHost: string | null;
  readonly smtpPort: number;
  readonly tls: boolean;
  readonly starttls: boolean;
  readonly validateCerts: boolean;
  readonly username: string | null;
  readonly password: SecretSource | null;
  readonly subject: string | null;
  readonly body: string | null;
  readonly html: boolean;
}

export interface SentryReport {
  readonly dsn: SecretSource | null;
  readonly fingerprint: readonly string[];
  readonly level: string | null;
  readonly extra: Readonly<Record<string, string | number | boolean>>;
  readonly body: string | null;
  readonly environment: string | null;
  readonly maxStringLength: number;
}

export interface ShellReport {
  /** null = reporter disabled. */
  readonly command: JobCommand | null;
  readonly shell: string;
}

export interface WebhookReport {
  readonly url: SecretSource | null;
  readonly method: string;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  readonly timeoutMs: number;
}

/** A report block; each reporter is a no-op when its part is unconfigured (null). */
export interface ReportBlock {
  readonly sentry: SentryReport | null;
  readonly mail: MailReport | null;
  readonly shell: ShellReport | null;
  readonly webhook: WebhookReport | null;
}

export interface StatsdTarget {
  readonly prefix: string;
  readonly host: string;
  readonly port: number;
}

export interface MonitorResources {
  readonly enabled: boolean;
  readonly intervalMs: number;
  readonly history: number;
}

export interface JobSecret {
  readonly name: string;
  readonly source: SecretSource;
}

export interface ResolvedJob {
  readonly name: string;
  readonly command: JobCommand;
  /** Shell for string commands ('' = the platform's default shell). */
  readonly shell: string;
  readonly schedule: JobSchedule;
  /** The configured frame: an IANA name, 'UTC', or null for the daemon's local zone. */
  readonly timezone: string | null;
  readonly enabled: boolean;
  /** env_file entries, then defaults.environment, then the job's environment (later wins, deduplicated). */
  readonly environment: readonly EnvironmentEntry[];
  /** True when anything (environment, env_file, crontab assignment) defines job variables. */
  readonly hasEnvironment: boolean;
  /** As configured (name or numeric id), for the fingerprint and messages. */
  readonly user: string | number | null;
  readonly group: string | number | null;
  /** Resolved ids (null = unchanged); userName is the login name for initgroups when known. */
  readonly uid: number | null;
  readonly gid: number | null;
  readonly userName: string | null;
  readonly captureStdout: boolean;
  readonly captureStderr: boolean;
  readonly saveLimit: number;
  readonly maxLineLength: number;
  readonly streamPrefix: string;
  readonly concurrencyPolicy: ConcurrencyPolicy;
  readonly concurrencyScope: ConcurrencyScope;
  readonly clusterPolicy: ClusterPolicy;
  readonly executionTimeoutMs: number | null;
  readonly killTimeoutMs: number;
  readonly failsWhen: FailsWhen;
  readonly retry: RetryPolicy;
  readonly onFailureReport: ReportBlock;
  readonly onPermanentFailureReport: ReportBlock;
  readonly onSuccessReport: ReportBlock;
  readonly statsd: StatsdTarget | null;
  readonly monitorResources: MonitorResources;
  readonly onMissed: OnMissed;
  readonly startingDeadlineMs: number | null;
  readonly catchupJitterMs: number;
  readonly onlyIfLastSucceeded: boolean;
  readonly archiveOutput: boolean;
  readonly redactArchivedSecrets: boolean;
  /**
   * Keep the daemon's variables that a secret source names (`fromEnvVar`) in this job's
   * environment; by default they are removed (docs/configuration.md "Environment").
   */
  readonly inheritSecretEnvVars: boolean;
  readonly secrets: readonly JobSecret[];
  readonly stateAllowedScopes: readonly string[];
  /** Per-job digest (docs/configuration.md "Job-set id"): lowercase hex SHA-256 of the job's canonical identity text. */
  readonly digest: string;
  readonly source: SourceLocation;
}

export interface ResolvedConfig {
  /** Jobs in config order; names are unique. */
  readonly jobs: readonly ResolvedJob[];
  /** `v1:<64 hex>` over the job set. */
  readonly jobSetId: string;
  /** The raw `logging` section (validated shape only), or null. */
  readonly logging: Readonly<Record<string, unknown>> | null;
  /** The durable store (`state` section), or null when stateless. */
  readonly state: ResolvedState | null;
  /** The control API (`web` section); absent or null when not configured. */
  readonly web?: ResolvedWeb | null;
  /** The `cluster` section; absent or null when not configured. */
  readonly cluster?: ResolvedCluster | null;
  /** The `dags` sections in config order (docs/dags.md); absent or empty when none. */
  readonly dags?: readonly ResolvedDag[];
  /** Every file the parse read (config files, includes, env_files) for the reload signature. */
  readonly sourceFiles: readonly string[];
  /** The config path given on the command line (file or directory). */
  readonly configPath: string;
}
