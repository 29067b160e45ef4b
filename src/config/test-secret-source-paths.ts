// Test-only: every secret source the configuration's schema tables declare, as a path
// (`cluster.etcd.password`, `jobs[].secrets[]`, `jobs[].onFailure.report.mail.password`, ...),
// derived from the tables themselves. A secret source is a mapping with a `fromEnvVar` key: the
// daemon reads that variable, so it must stay out of job environments (docs/security.md
// "Secrets"). The runner's walk over a resolved configuration is held to this list by its test,
// so a `fromEnvVar` added anywhere in a table fails that test until the walk reads it.
// Must not: be imported by shipped code (it is a test fixture of the tables).
import { CLUSTER_SCHEMA } from './cluster-schema.js';
import { INCLUDE_SCHEMA, LOGGING_SCHEMA, TOP_LEVEL_KEYS } from './config-schema.js';
import { DAG_SCHEMA } from './dag-schema.js';
import { DEFAULTS_SCHEMA, JOB_SCHEMA } from './job-schema.js';
import type { Schema } from './schema.js';
import { STATE_SCHEMA } from './state-section.js';
import { WEB_SCHEMA } from './web-section.js';

type TopLevelKey = (typeof TOP_LEVEL_KEYS)[number];

/** The table each top-level key is typed by (a new key fails to compile until it is here). */
const SECTION_SCHEMAS: Readonly<Record<TopLevelKey, Schema>> = {
  defaults: DEFAULTS_SCHEMA,
  jobs: { kind: 'seq', item: JOB_SCHEMA },
  include: INCLUDE_SCHEMA,
  logging: LOGGING_SCHEMA,
  web: WEB_SCHEMA,
  dags: { kind: 'seq', item: DAG_SCHEMA },
  cluster: CLUSTER_SCHEMA,
  state: STATE_SCHEMA,
};

/** The key a secret source is recognised by. */
const SECRET_SOURCE_KEY = 'fromEnvVar';

/** Every secret source path of every section, sorted. */
export function secretSourcePaths(): readonly string[] {
  const found = new Set<string>();
  for (const key of TOP_LEVEL_KEYS) collect(SECTION_SCHEMAS[key], key, found);
  return [...found].sort();
}

function collect(schema: Schema, path: string, found: Set<string>): void {
  switch (schema.kind) {
    case 'map':
      if (Object.hasOwn(schema.fields, SECRET_SOURCE_KEY)) found.add(path);
      for (const [key, spec] of Object.entries(schema.fields)) {
        if (key !== SECRET_SOURCE_KEY) collect(spec.schema, `${path}.${key}`, found);
      }
      return;
    case 'seq':
      collect(schema.item, `${path}[]`, found);
      return;
    case 'mapOf':
      collect(schema.value, `${path}{}`, found);
      return;
    case 'emptyNone':
      collect(schema.inner, path, found);
      return;
    case 'either':
      for (const branch of [schema.scalar, schema.map, schema.seq]) {
        if (branch !== undefined) collect(branch, path, found);
      }
      return;
    case 'any':
    case 'bool':
    case 'enum':
    case 'float':
    case 'int':
    case 'intOrStr':
    case 'str':
    case 'written':
      return; // a scalar, or YAML the tables do not describe: no secret source inside
  }
}
