// The report blocks of a job (`onFailure.report`, `onPermanentFailure.report`,
// `onSuccess.report`; docs/configuration.md "Reports") as one table: the keys of `sentry`, `mail`,
// `shell` and `webhook`, their types and the reference's built-in defaults, which the job
// identity hashes and resolution applies (reports.ts).
// Must not: resolve secrets or render templates (report/ does, at report time).
import {
  FROM_FIELDS,
  SYSTEM_SHELL,
  bool,
  either,
  emptyNone,
  float,
  int,
  map,
  mapOf,
  opt,
  req,
  seq,
  str,
  written,
  type MapOut,
} from './schema-nodes.js';

/** A job command: a string for the shell, or a list exec'd directly. */
export const COMMAND = either({
  scalar: str,
  seq: seq(str),
  expected: 'a string or a list of strings',
});

/**
 * `value` / `fromFile` / `fromEnvVar`, each possibly empty (= null). In the job identity a
 * literal value is `<redacted>`: rotating a secret keeps the id, configuring one changes it.
 */
export const SECRET_SOURCE = map({
  value: opt(emptyNone(str), { default: null, redacted: true }),
  fromFile: opt(emptyNone(str), { default: null }),
  fromEnvVar: opt(emptyNone(str), { default: null }),
});
export type TypedSecretSource = MapOut<typeof SECRET_SOURCE.fields>;

// The reference's default templates, verbatim: they are part of every job's identity, and
// report/ renders them when a subject or body is not written (the resolved value is then null).
/** `Cron job '<name>' completed` / `... failed`. */
export const DEFAULT_SUBJECT_TEMPLATE =
  "Cron job '{{name}}' {% if success %}completed{% else %}failed{% endif %}";
/**
 * A leading blank line; on failure `(job failed because <reason>)` and a blank line; then both
 * outputs under STDOUT:/STDERR: headings, the one non-empty output, or a placeholder.
 */
export const DEFAULT_BODY_TEMPLATE = `
{% if fail_reason -%}
(job failed because {{fail_reason}})
{% endif %}
{% if stdout and stderr -%}
STDOUT:
---
{{stdout}}
---
STDERR:
{{stderr}}
{% elif stdout -%}
{{stdout}}
{% elif stderr -%}
{{stderr}}
{% else -%}
(no output was captured)
{% endif %}
`;
/** Subject, newline, body. */
export const DEFAULT_SENTRY_BODY_TEMPLATE = `${DEFAULT_SUBJECT_TEMPLATE}\n${DEFAULT_BODY_TEMPLATE}`;
// The reference's webhook default: its text is the Sentry body plus the body's final newline
// (report/ renders the text without that newline; see report/templates.ts).
const WEBHOOK_BODY = `{"text": {% filter tojson %}${DEFAULT_SENTRY_BODY_TEMPLATE}{% endfilter %}}`;

export const DEFAULT_SENTRY_FINGERPRINT: readonly string[] = Object.freeze([
  'yacron2',
  '{{ environment.HOSTNAME }}',
  '{{ name }}',
]);

// `level`, `environment`, `smtpHost` and `username` are plain strings, as in the reference (an
// empty value is ''); resolution reads '' as unset. `level` and `extra` have no default: they
// enter the identity only when written.
const SENTRY = map({
  dsn: opt(SECRET_SOURCE, { default: FROM_FIELDS }),
  fingerprint: opt(seq(str), { default: DEFAULT_SENTRY_FINGERPRINT }),
  level: opt(str),
  /** Values kept as written: the identity hashes the text, resolution types it. */
  extra: opt(mapOf(written)),
  body: opt(str, { default: DEFAULT_SENTRY_BODY_TEMPLATE }),
  environment: opt(str, { default: null }),
  maxStringLength: opt(int, { default: 8192 }),
});

// `from`/`to` are optional keys here although the reference requires both whenever a mail block
// is written: it lets a job set only `to` and inherit `from` from defaults (docs/deviations.md).
const MAIL = map({
  from: opt(emptyNone(str), { default: null }),
  to: opt(emptyNone(str), { default: null }),
  smtpHost: opt(str, { default: null }),
  smtpPort: opt(int, { default: 25 }),
  tls: opt(bool, { default: false }),
  starttls: opt(bool, { default: false }),
  validate_certs: opt(bool, { default: true }),
  username: opt(str, { default: null }),
  password: opt(SECRET_SOURCE, { default: FROM_FIELDS }),
  subject: opt(str, { default: DEFAULT_SUBJECT_TEMPLATE }),
  body: opt(str, { default: DEFAULT_BODY_TEMPLATE }),
  html: opt(bool, { default: false }),
});

const SHELL_REPORT = map({
  command: req(emptyNone(COMMAND), { default: null }),
  shell: opt(str, { default: SYSTEM_SHELL }),
});

const WEBHOOK = map({
  url: opt(SECRET_SOURCE, { default: FROM_FIELDS }),
  method: opt(str, { default: 'POST' }),
  contentType: opt(str, { default: 'application/json' }),
  headers: opt(mapOf(str, { redactValues: true }), { default: {} }),
  body: opt(str, { default: WEBHOOK_BODY }),
  timeout: opt(float, { default: 10 }),
});

export const REPORT = map({
  sentry: opt(SENTRY, { default: FROM_FIELDS }),
  mail: opt(MAIL, { default: FROM_FIELDS }),
  shell: opt(SHELL_REPORT, { default: FROM_FIELDS }),
  webhook: opt(WEBHOOK, { default: FROM_FIELDS }),
});
export type TypedReport = MapOut<typeof REPORT.fields>;
