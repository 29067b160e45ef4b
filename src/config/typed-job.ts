// The shapes the schema walker produces for a job / `defaults` (config-schema.ts): typed, but
// not yet merged with defaults or checked. Every key is optional until resolution.

export interface TypedSecretSource {
  readonly value?: string | null;
  readonly fromFile?: string | null;
  readonly fromEnvVar?: string | null;
}

export interface TypedSentry {
  readonly dsn?: TypedSecretSource;
  readonly fingerprint?: readonly string[];
  readonly level?: string | null;
  readonly extra?: Readonly<Record<string, string | number | boolean>>;
  readonly body?: string;
  readonly environment?: string | null;
  readonly maxStringLength?: number;
}

export interface TypedMail {
  readonly from?: string | null;
  readonly to?: string | null;
  readonly smtpHost?: string | null;
  readonly smtpPort?: number;
  readonly tls?: boolean;
  readonly starttls?: boolean;
  readonly validate_certs?: boolean;
  readonly username?: string | null;
  readonly password?: TypedSecretSource;
  readonly subject?: string;
  readonly body?: string;
  readonly html?: boolean;
}

export interface TypedShellReport {
  readonly command?: string | readonly string[] | null;
  readonly shell?: string;
}

export interface TypedWebhook {
  readonly url?: TypedSecretSource;
  readonly method?: string;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeout?: number;
}

export interface TypedReport {
  readonly sentry?: TypedSentry;
  readonly mail?: TypedMail;
  readonly shell?: TypedShellReport;
  readonly webhook?: TypedWebhook;
}

export interface TypedRetry {
  readonly maximumRetries?: number;
  readonly initialDelay?: number;
  readonly maximumDelay?: number;
  readonly backoffMultiplier?: number;
}

export interface TypedScheduleObject {
  readonly second?: string;
  readonly minute?: string;
  readonly hour?: string;
  readonly dayOfMonth?: string;
  readonly month?: string;
  readonly dayOfWeek?: string;
  readonly year?: string;
}

export interface TypedJob {
  readonly name?: string;
  readonly command?: string | readonly string[];
  readonly schedule?: string | TypedScheduleObject;
  readonly shell?: string;
  readonly enabled?: boolean;
  readonly environment?: readonly { readonly key: string; readonly value: string }[];
  readonly env_file?: string;
  readonly user?: string | number;
  readonly group?: string | number;
  readonly secrets?: readonly (TypedSecretSource & { readonly name: string })[];
  readonly stateAllowedScopes?: readonly string[];
  readonly utc?: boolean;
  readonly timezone?: string;
  readonly captureStdout?: boolean;
  readonly captureStderr?: boolean;
  readonly saveLimit?: number;
  readonly maxLineLength?: number;
  readonly streamPrefix?: string;
  readonly concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  readonly concurrencyScope?: 'node' | 'cluster';
  readonly clusterPolicy?: 'Leader' | 'PreferLeader' | 'EveryNode';
  readonly executionTimeout?: number;
  readonly killTimeout?: number;
  readonly failsWhen?: {
    readonly producesStdout?: boolean;
    readonly producesStderr?: boolean;
    readonly nonzeroReturn?: boolean;
    readonly always?: boolean;
  };
  readonly onFailure?: { readonly retry?: TypedRetry; readonly report?: TypedReport };
  readonly onPermanentFailure?: { readonly report?: TypedReport };
  readonly onSuccess?: { readonly report?: TypedReport };
  readonly statsd?: { readonly prefix: string; readonly host: string; readonly port: number };
  readonly monitorResources?:
    boolean | { readonly enabled?: boolean; readonly interval?: number; readonly history?: number };
  readonly onMissed?: 'skip' | 'run-once' | 'run-all';
  readonly startingDeadlineSeconds?: number | null;
  readonly catchupJitterSeconds?: number;
  readonly onlyIfLastSucceeded?: boolean;
  readonly archiveOutput?: boolean;
  readonly redactArchivedSecrets?: boolean;
}
