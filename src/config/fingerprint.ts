// Job identity, scheme v1 (docs/configuration.md "Job-set id"): each job's effective
// configuration — the built-in defaults of job-schema.ts under what was written — as one
// canonical JSON text, secrets redacted; the per-job digest is its SHA-256 and the job-set id
// hashes the sorted digests. The bytes are the Python reference's, so mixed clusters agree.
// Must not: change any byte for an existing configuration (durable retry records and @reboot
// markers store digests), or read anything but the typed job and the facts passed in.
import { createHash } from 'node:crypto';
import { compareCodePoints } from '../common/index.js';
import { collapseScheduleWhitespace, renderScheduleObjectVerbatim } from '../schedule/index.js';
import { canonicalJson, canonicalString } from './canonical-json.js';
import {
  JOB_SCHEMA,
  jobDefaults,
  type CustomIdentityKey,
  type JobKey,
  type TypedJob,
} from './job-schema.js';
import { fieldDefault, memoPerPlatform, type FieldSpec, type Schema } from './schema-nodes.js';

export const JOB_SET_SCHEME = 'v1';
const REDACTED = canonicalString('<redacted>');

/** What the identity needs beyond the typed job. */
export interface IdentityFacts {
  /** The variable names of the job's env_file, as the reference reads them (a BOM kept). */
  readonly envFileNames: readonly string[];
  /** The platform's defaults (the system shell) count: compare replicas on the same OS. */
  readonly platform: NodeJS.Platform;
}

type CustomRule = (job: TypedJob, facts: IdentityFacts) => string;

// The keys whose identity is not simply their effective value.
const CUSTOM_RULES: Readonly<Record<CustomIdentityKey, CustomRule>> = {
  // A string and a list never collide: `{"shell_command": ...}` vs `{"argv": [...]}`.
  command: ({ command }) =>
    typeof command === 'string'
      ? `{"shell_command":${canonicalString(command)}}`
      : `{"argv":${canonicalJson(command)}}`,
  // Strings with whitespace runs collapsed; objects rendered verbatim; macros never expanded.
  schedule: ({ schedule }) =>
    canonicalString(
      typeof schedule === 'string'
        ? collapseScheduleWhitespace(schedule)
        : renderScheduleObjectVerbatim(schedule),
    ),
  // Names only (values are per host), inline and env_file ones together, sorted, once each.
  environment: ({ environment = [] }, { envFileNames }) =>
    canonicalJson(
      [...new Set([...environment.map((entry) => entry.key), ...envFileNames])].sort(
        compareCodePoints,
      ),
    ),
  // The frame: the zone as written, else UTC (utc: true, the default), else local time (null).
  timezone: ({ timezone, utc }, { platform }) =>
    timezone !== undefined
      ? canonicalString(timezone)
      : (utc ?? jobDefaults(platform).utc)
        ? '"UTC"'
        : 'null',
};

const FIELDS: Readonly<Record<JobKey, FieldSpec>> = JOB_SCHEMA.fields;
function isJobKey(key: string): key is JobKey {
  return Object.hasOwn(FIELDS, key);
}

function hasCustomRule(key: JobKey): key is CustomIdentityKey {
  return Object.hasOwn(CUSTOM_RULES, key);
}

// Job keys are ASCII: plain sort is code-point order.
const IDENTITY_KEYS = Object.keys(FIELDS)
  .filter(isJobKey)
  .filter((key) => FIELDS[key].identity !== 'excluded')
  .sort();

/** The exact canonical text of a job's identity (what its digest hashes). */
export function canonicalJobText(job: TypedJob, facts: IdentityFacts): string {
  const { platform } = facts;
  let out = '{';
  for (const key of IDENTITY_KEYS) {
    const spec = FIELDS[key];
    let json: string;
    switch (spec.identity) {
      case 'custom':
        // Every `custom` row has its rule (CUSTOM_RULES is keyed by exactly those keys).
        if (!hasCustomRule(key)) throw new TypeError(`no identity rule for ${key}`);
        json = CUSTOM_RULES[key](job, facts);
        break;
      case 'hashed-unless-default':
        json = fieldJson(spec, job[key], platform);
        if (json === defaultJson(spec, platform)) continue;
        break;
      case 'hashed':
      case undefined:
        json = fieldJson(spec, job[key], platform);
        break;
      case 'excluded': // not in IDENTITY_KEYS
        continue;
      default: {
        const unknownRule: never = spec.identity;
        throw new TypeError(`unknown identity rule ${String(unknownRule)}`);
      }
    }
    out += `${out.length > 1 ? ',' : ''}"${key}":${json}`;
  }
  return out + '}';
}

/** Per-job digest: lowercase hex SHA-256 of the canonical text. */
export function jobDigestOf(canonicalText: string): string {
  return sha256Hex(canonicalText);
}

/** `v1:` + sha256("v1\n" + sorted digests joined by "\n"); order-independent. */
export function computeJobSetId(jobs: Iterable<{ readonly digest: string } | string>): string {
  const digests = [...jobs].map((job) => (typeof job === 'string' ? job : job.digest)).sort();
  return `${JOB_SET_SCHEME}:${sha256Hex(`${JOB_SET_SCHEME}\n${digests.join('\n')}`)}`;
}

function sha256Hex(asciiText: string): string {
  return createHash('sha256').update(asciiText, 'latin1').digest('hex');
}

/** A field's effective value as canonical JSON: its default where nothing was written. */
function fieldJson(spec: FieldSpec, value: unknown, platform: NodeJS.Platform): string {
  if (value === undefined) return defaultJson(spec, platform);
  if (spec.redacted === true && value !== null) return REDACTED;
  return valueJson(spec.schema, value, platform);
}

// Most jobs leave most keys (above all the three report blocks, ~5 KB of text) at their
// defaults: their canonical JSON is built once per field and platform.
const defaultJson = memoPerPlatform((spec: FieldSpec, platform): string => {
  const value = fieldDefault(spec, platform);
  return value === undefined ? '' : valueJson(spec.schema, value, platform);
});

const fieldNameCache = new WeakMap<object, readonly string[]>();

// Field names are ASCII (table keys): plain sort is code-point order.
function sortedFieldNames(fields: Readonly<Record<string, FieldSpec>>): readonly string[] {
  let names = fieldNameCache.get(fields);
  if (names === undefined) {
    names = Object.keys(fields).sort();
    fieldNameCache.set(fields, names);
  }
  return names;
}

function isMap(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` (typed by `schema`) merged over the defaults of its map fields, as canonical JSON. */
function valueJson(schema: Schema, value: unknown, platform: NodeJS.Platform): string {
  if (value === null) return 'null';
  switch (schema.kind) {
    case 'map': {
      if (!isMap(value)) break;
      const members: string[] = [];
      for (const key of sortedFieldNames(schema.fields)) {
        const spec = schema.fields[key];
        if (spec === undefined) continue;
        const child = value[key];
        if (child === undefined && spec.default === undefined) continue;
        members.push(`${canonicalString(key)}:${fieldJson(spec, child, platform)}`);
      }
      return `{${members.join(',')}}`;
    }
    case 'mapOf': {
      if (!isMap(value)) break;
      const members = Object.keys(value)
        .sort(compareCodePoints)
        .map(
          (key) =>
            `${canonicalString(key)}:${schema.redactValues === true ? REDACTED : valueJson(schema.value, value[key], platform)}`,
        );
      return `{${members.join(',')}}`;
    }
    case 'seq':
      if (!Array.isArray(value)) break;
      return `[${value.map((item: unknown) => valueJson(schema.item, item, platform)).join(',')}]`;
    case 'either': {
      const branch = Array.isArray(value) ? schema.seq : isMap(value) ? schema.map : schema.scalar;
      if (branch !== undefined) return valueJson(branch, value, platform);
      break;
    }
    case 'emptyNone':
      return valueJson(schema.inner, value, platform);
    case 'any':
    case 'bool':
    case 'enum':
    case 'float':
    case 'int':
    case 'intOrStr':
    case 'str':
    case 'written':
      return canonicalJson(value);
  }
  throw new TypeError(`a ${schema.kind} value does not have the shape its schema gives`);
}
