// The top level of a config file (docs/configuration.md "Top-level sections"): which sections
// exist, which may appear once per configuration, the include list and the logging shape — and
// the DAG list. Job keys: job-schema.ts; DAG keys: dag-schema.ts.
import { anyYaml, bool, int, map, opt, req, seq, str, type MapOut } from './schema-nodes.js';

export const INCLUDE_SCHEMA = seq(str);

/** Python dictConfig: `version` is checked, the rest is passed through. */
export const LOGGING_SCHEMA = map({
  version: req(int),
  incremental: opt(bool),
  disable_existing_loggers: opt(bool),
  formatters: opt(anyYaml),
  filters: opt(anyYaml),
  handlers: opt(anyYaml),
  loggers: opt(anyYaml),
  root: opt(anyYaml),
});
export type TypedLogging = MapOut<typeof LOGGING_SCHEMA.fields>;

/** Top-level keys. */
export const TOP_LEVEL_KEYS = [
  'defaults',
  'jobs',
  'include',
  'logging',
  'web',
  'dags',
  'cluster',
  'state',
] as const;

/** Top-level sections of which the whole config may hold at most one. */
export const SINGLETON_SECTIONS = ['logging', 'web', 'cluster', 'state'] as const;
export type SingletonSection = (typeof SINGLETON_SECTIONS)[number];
